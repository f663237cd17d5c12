import Foundation
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Type declarations")
final class DeclarationTests: FolderSuite {

  /// A registry with the core types and no shared-mime-info, so tests do not depend on the
  /// machine's database.
  func coreRegistry() -> TypeRegistry { TypeRegistry(configuration: .init(dataDirectories: [])) }

  static let plist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
      <key>UTExportedTypeDeclarations</key>
      <array>
        <dict>
          <key>UTTypeIdentifier</key><string>com.example.notes</string>
          <key>UTTypeDescription</key><string>Example notes</string>
          <key>UTTypeConformsTo</key><array><string>public.plain-text</string></array>
          <key>UTTypeTagSpecification</key>
          <dict>
            <key>public.filename-extension</key><array><string>notes</string><string>note</string></array>
            <key>public.mime-type</key><string>text/x-example-notes</string>
          </dict>
        </dict>
      </array>
      <key>UTImportedTypeDeclarations</key>
      <array>
        <dict>
          <key>UTTypeIdentifier</key><string>org.example.other</string>
          <key>UTTypeConformsTo</key><string>public.data</string>
          <key>UTTypeTagSpecification</key>
          <dict><key>public.filename-extension</key><string>other</string></dict>
        </dict>
      </array>
    </dict>
    </plist>
    """

  @Test func loadsAPropertyList() throws {
    let registry = coreRegistry()
    let url = try folder.write(Self.plist, to: "Info.plist")
    let diagnostics = try registry.loadDeclarations(from: url)
    #expect(diagnostics.isEmpty)
    let notes = try #require(registry.type(withIdentifier: "com.example.notes"))
    #expect(notes.conforms(to: .plainText))
    #expect(registry.type(forFilenameExtension: "note") == notes)
    #expect(registry.type(forTag: "text/x-example-notes", tagClass: .mimeType) == notes)
    #expect(notes.localizedDescription == "Example notes")
    #expect(registry.origin(ofTypeWithIdentifier: "com.example.notes") == .exported)
    #expect(registry.origin(ofTypeWithIdentifier: "org.example.other") == .imported)
  }

  @Test func loadsABinaryPropertyList() throws {
    let registry = coreRegistry()
    let plist: [String: Any] = [
      "UTExportedTypeDeclarations": [
        [
          "UTTypeIdentifier": "com.example.binary", "UTTypeConformsTo": ["public.data"],
          "UTTypeTagSpecification": ["public.filename-extension": ["bin-example"]],
        ]
      ]
    ]
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)
    let url = folder.file("Info-binary.plist")
    try data.write(to: url)
    #expect(try registry.loadDeclarations(from: url).isEmpty)
    #expect(registry.type(forFilenameExtension: "bin-example")?.identifier == "com.example.binary")
  }

  /// `UTTypeReferenceURL` and `UTTypeVersion` reach Apple's `referenceURL` and `version`;
  /// the version is read whether the plist gives it as a number or as a string.
  @Test func referenceURLAndVersionAreRead() throws {
    let registry = coreRegistry()
    let plist: [String: Any] = [
      "UTExportedTypeDeclarations": [
        [
          "UTTypeIdentifier": "com.example.versioned", "UTTypeConformsTo": ["public.data"], "UTTypeVersion": 3,
          "UTTypeReferenceURL": "https://example.com/format",
        ],
        ["UTTypeIdentifier": "com.example.stringversion", "UTTypeConformsTo": ["public.data"], "UTTypeVersion": "7"],
        ["UTTypeIdentifier": "com.example.plain", "UTTypeConformsTo": ["public.data"]],
      ]
    ]
    let url = folder.file("Info-versions.plist")
    try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url)
    #expect(try registry.loadDeclarations(from: url).isEmpty)
    let versioned = try #require(registry.type(withIdentifier: "com.example.versioned"))
    #expect(versioned.referenceURL == URL(string: "https://example.com/format"))
    #expect(versioned.version == NSNumber(value: 3))
    #expect(registry.type(withIdentifier: "com.example.stringversion")?.version == NSNumber(value: 7))
    let plain = try #require(registry.type(withIdentifier: "com.example.plain"))
    #expect(plain.referenceURL == nil && plain.version == nil)
  }

  @Test func loadsJSON() throws {
    let registry = coreRegistry()
    let json = """
      {"UTExportedTypeDeclarations": [{"UTTypeIdentifier": "com.example.sketch", "UTTypeConformsTo": ["com.apple.package"],
        "UTTypeTagSpecification": {"public.filename-extension": ".sketchbundle"}}]}
      """
    let diagnostics = try registry.loadDeclarations(from: try folder.write(json, to: "types.json"))
    #expect(diagnostics.isEmpty)
    #expect(registry.type(forFilenameExtension: "sketchbundle")?.identifier == "com.example.sketch")
  }

  @Test func badEntriesAreReportedAndTheRestLoad() throws {
    let registry = coreRegistry()
    let json = """
      {"UTExportedTypeDeclarations": [
        {"UTTypeIdentifier": "com.example.good", "UTTypeConformsTo": ["public.data"]},
        {"UTTypeIdentifier": "not an identifier", "UTTypeConformsTo": ["public.data"]},
        {"UTTypeIdentifier": "public.mine", "UTTypeConformsTo": ["public.data"]},
        {"UTTypeIdentifier": "com.example.orphan", "UTTypeConformsTo": ["com.example.nowhere"]},
        {"UTTypeIdentifier": "com.example.child-of-orphan", "UTTypeConformsTo": ["com.example.orphan"]},
        {"UTTypeIdentifier": "com.example.a", "UTTypeConformsTo": ["com.example.b"]},
        {"UTTypeIdentifier": "com.example.b", "UTTypeConformsTo": ["com.example.a"]},
        {"UTTypeConformsTo": ["public.data"]},
        "not a dictionary",
        {"UTTypeIdentifier": "com.example.badtags", "UTTypeTagSpecification": 5},
        {"UTTypeIdentifier": "dyn.ah62d4rv4ge80e2py"}
      ]}
      """
    let url = try folder.write(json, to: "broken.json")
    let diagnostics = try registry.loadDeclarations(from: url)
    #expect(registry.type(withIdentifier: "com.example.good") != nil)
    let byIndex = Dictionary(grouping: diagnostics, by: \.index)
    #expect(Set(byIndex.keys) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    #expect(byIndex[1]?.first?.message.contains("not a valid type identifier") == true)
    #expect(byIndex[2]?.first?.message.contains("reserved") == true)
    #expect(byIndex[3]?.first?.message.contains("com.example.nowhere") == true)
    #expect(byIndex[5]?.first?.message.contains("cycle") == true)
    for diagnostic in diagnostics {
      #expect(diagnostic.file == url)
      #expect(diagnostic.description.contains("'broken.json'"))
      #expect(diagnostic.description.contains("UTExportedTypeDeclarations[\(diagnostic.index)]"))
    }
    for id in ["com.example.orphan", "com.example.child-of-orphan", "com.example.a", "com.example.b", "public.mine"] {
      #expect(registry.type(withIdentifier: id) == nil, "\(id) should have been left out")
    }
  }

  @Test func exportedBeatsImportedBeatsSystem() throws {
    let registry = coreRegistry()
    let file = TypeDeclarationFile(
      exported: [TypeDeclaration(identifier: "com.example.markdown", conformsTo: ["public.plain-text"], tags: [.filenameExtension: ["md"]])],
      imported: [
        TypeDeclaration(identifier: "org.example.imported-markdown", conformsTo: ["public.plain-text"], tags: [.filenameExtension: ["md", "mkd2"]]),
        TypeDeclaration(identifier: "com.adobe.pdf", conformsTo: ["public.data"], description: "imported PDF", tags: [.filenameExtension: ["pdf"]]),
      ])
    #expect(registry.register(file).isEmpty)
    #expect(
      registry.types(forTag: "md", tagClass: .filenameExtension).map(\.identifier)
        == ["com.example.markdown", "org.example.imported-markdown", "net.daringfireball.markdown"])
    #expect(registry.type(withIdentifier: "com.adobe.pdf")?.localizedDescription == "imported PDF")
  }

  @Test(arguments: [
    ("missing.plist", false), ("garbage.plist", true), ("array.json", true),
  ])
  func unreadableFilesThrowNamingTheFile(_ name: String, create: Bool) throws {
    let url = folder.file(name)
    if create { try Data(name.hasSuffix(".json") ? "[1,2]".utf8 : "\u{0}\u{1}garbage".utf8).write(to: url) }
    let error = try #require(throws: QuireError.self) { try coreRegistry().loadDeclarations(from: url) }
    #expect(error.reason.contains("'\(name)'"))
  }

  @Test func invalidUTF8AndHugeEntriesDoNotCrash() throws {
    var bytes = Array("{\"UTExportedTypeDeclarations\": [{\"UTTypeIdentifier\": \"com.example.".utf8)
    bytes += [0xFF, 0xFE]
    bytes += Array("\"}]}".utf8)
    #expect(throws: QuireError.self) { try TypeDeclarationFile(data: Data(bytes)) }
    let many = (0..<2000).map { "{\"UTTypeIdentifier\": \"com.example.t\($0)\", \"UTTypeConformsTo\": \"public.data\"}" }
    let file = try TypeDeclarationFile(data: Data("{\"UTExportedTypeDeclarations\": [\(many.joined(separator: ","))]}".utf8))
    #expect(coreRegistry().register(file).isEmpty)
  }

  @Test func treeShowsTypesUnderEachParent() {
    let registry = TypeRegistry(declarations: [
      TypeDeclaration(identifier: "public.item", conformsTo: []),
      TypeDeclaration(identifier: "public.content", conformsTo: []),
      TypeDeclaration(identifier: "public.data", conformsTo: ["public.item"]),
      TypeDeclaration(identifier: "public.text", conformsTo: ["public.data", "public.content"], tags: [.mimeType: ["text/plain"]]),
      TypeDeclaration(identifier: "public.plain-text", conformsTo: ["public.text"], tags: [.filenameExtension: ["txt"]]),
    ])
    #expect(
      registry.debugDescription == """
        public.content
        └─ public.text (text/plain)
           └─ public.plain-text (.txt)
        public.item
        └─ public.data
           └─ public.text … (see above)
        """)
  }

  @Test func registryIsSafeFromManyThreads() async {
    let registry = coreRegistry()
    await withTaskGroup(of: Bool.self) { group in
      for index in 0..<16 {
        group.addTask {
          registry.add(TypeDeclaration(identifier: "com.example.concurrent\(index)", conformsTo: ["public.data"], tags: [.filenameExtension: ["c\(index)"]]))
          return registry.type(forFilenameExtension: "c\(index)")?.conforms(to: .data) == true
            && UTType.markdown.conforms(to: .text)
        }
      }
      for await ok in group { #expect(ok) }
    }
  }
}
