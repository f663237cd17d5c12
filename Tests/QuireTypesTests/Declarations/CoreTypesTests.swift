import QuireTypes
import Testing

/// Apple's core types against Apple's own values.
///
/// Sources:
/// - [H] Apple's `UniformTypeIdentifiers/UTCoreTypes.h`: each `UTType…` constant's comment
///   gives its identifier and what it conforms to (the same comments are in the older
///   `MobileCoreServices/UTCoreTypes.h` for the `kUTType…` constants); the tags are those the
///   constants' documentation lists.
/// - [M] `kMDItemContentTypeTree` printed by `mdls` on macOS, collected in
///   github.com/BABA983/Uniform-Type-Identifiers-Collection, file `UTIs.md`
///   (commit 4995758b6aea9cadfd354abf8e624f495ca76470): the full set of supertypes.
@Suite("Apple core types")
struct CoreTypesTests {
  struct Expectation: CustomTestStringConvertible, Sendable {
    var identifier: String
    var parents: [String]
    var extensions: [String] = []
    var mimeTypes: [String] = []
    var testDescription: String { identifier }
  }

  /// Direct conformances and tags, from [H].
  static let declared: [Expectation] = [
    .init(identifier: "public.item", parents: []),
    .init(identifier: "public.content", parents: []),
    .init(identifier: "public.composite-content", parents: ["public.content"]),
    .init(identifier: "public.data", parents: ["public.item"]),
    .init(identifier: "public.directory", parents: ["public.item"]),
    .init(identifier: "public.folder", parents: ["public.directory"]),
    .init(identifier: "public.volume", parents: ["public.folder"]),
    .init(identifier: "com.apple.package", parents: ["public.directory"]),
    .init(identifier: "com.apple.bundle", parents: ["public.directory"]),
    .init(identifier: "com.apple.plugin", parents: ["com.apple.bundle", "com.apple.package"]),
    .init(identifier: "com.apple.framework", parents: ["com.apple.bundle"]),
    .init(identifier: "com.apple.application", parents: ["public.executable"]),
    .init(identifier: "com.apple.application-bundle", parents: ["com.apple.application", "com.apple.bundle", "com.apple.package"]),
    .init(identifier: "com.microsoft.windows-executable", parents: ["public.data", "public.executable"]),
    .init(identifier: "com.apple.mount-point", parents: ["public.item", "com.apple.resolvable"]),
    .init(identifier: "com.apple.bookmark", parents: ["public.data", "com.apple.resolvable"]),
    .init(identifier: "public.vcard", parents: ["public.text", "public.contact"]),
    .init(identifier: "public.email-message", parents: ["public.message"]),
    .init(identifier: "public.symlink", parents: ["public.item", "com.apple.resolvable"]),
    .init(identifier: "com.apple.alias-file", parents: ["public.data", "com.apple.resolvable"]),
    .init(identifier: "public.executable", parents: ["public.item"]),
    .init(identifier: "public.unix-executable", parents: ["public.data", "public.executable"]),
    .init(identifier: "public.url", parents: ["public.data"]),
    .init(identifier: "public.file-url", parents: ["public.url"]),
    .init(identifier: "public.text", parents: ["public.data", "public.content"]),
    .init(identifier: "public.plain-text", parents: ["public.text"], extensions: ["txt"], mimeTypes: ["text/plain"]),
    .init(identifier: "public.utf8-plain-text", parents: ["public.plain-text"]),
    .init(identifier: "public.utf16-plain-text", parents: ["public.plain-text"]),
    .init(identifier: "public.utf16-external-plain-text", parents: ["public.plain-text"]),
    .init(identifier: "public.utf8-tab-separated-values-text", parents: ["public.tab-separated-values-text", "public.utf8-plain-text"]),
    .init(identifier: "public.delimited-values-text", parents: ["public.text"]),
    .init(identifier: "public.comma-separated-values-text", parents: ["public.delimited-values-text"], extensions: ["csv"], mimeTypes: ["text/csv"]),
    .init(
      identifier: "public.tab-separated-values-text", parents: ["public.delimited-values-text"], extensions: ["tsv"], mimeTypes: ["text/tab-separated-values"]),
    .init(identifier: "public.rtf", parents: ["public.text"], extensions: ["rtf"], mimeTypes: ["text/rtf"]),
    .init(identifier: "public.xml", parents: ["public.text"], extensions: ["xml"], mimeTypes: ["application/xml"]),
    .init(identifier: "public.yaml", parents: ["public.text"], extensions: ["yaml"], mimeTypes: ["application/x-yaml"]),
    .init(identifier: "public.source-code", parents: ["public.plain-text"]),
    .init(identifier: "public.swift-source", parents: ["public.source-code"], extensions: ["swift"]),
    .init(identifier: "public.script", parents: ["public.source-code"]),
    .init(identifier: "public.shell-script", parents: ["public.script"], extensions: ["sh"]),
    .init(identifier: "com.apple.property-list", parents: ["public.data"], extensions: ["plist"]),
    .init(identifier: "com.apple.xml-property-list", parents: ["public.xml", "com.apple.property-list"]),
    .init(identifier: "com.apple.binary-property-list", parents: ["com.apple.property-list"]),
    .init(identifier: "public.json", parents: ["public.text"], extensions: ["json"], mimeTypes: ["application/json"]),
    .init(identifier: "public.html", parents: ["public.text"], extensions: ["html"], mimeTypes: ["text/html"]),
    .init(identifier: "public.perl-script", parents: ["public.shell-script"]),
    .init(identifier: "public.ruby-script", parents: ["public.shell-script"]),
    .init(identifier: "com.apple.applescript.text", parents: ["public.script"], extensions: ["applescript"]),
    .init(identifier: "com.apple.applescript.script-bundle", parents: ["com.apple.bundle", "com.apple.package", "public.script"]),
    .init(identifier: "com.apple.flat-rtfd", parents: ["public.data", "public.composite-content"]),
    .init(identifier: "com.apple.webarchive", parents: ["public.data", "public.composite-content"]),
    .init(identifier: "public.presentation", parents: ["public.composite-content"]),
    .init(identifier: "public.spreadsheet", parents: ["public.content"]),
    .init(identifier: "com.adobe.pdf", parents: ["public.data", "public.composite-content"], extensions: ["pdf"], mimeTypes: ["application/pdf"]),
    .init(identifier: "com.apple.rtfd", parents: ["com.apple.package", "public.composite-content"], extensions: ["rtfd"]),
    .init(identifier: "public.image", parents: ["public.data", "public.content"]),
    .init(identifier: "public.jpeg", parents: ["public.image"], extensions: ["jpeg"], mimeTypes: ["image/jpeg"]),
    .init(identifier: "public.png", parents: ["public.image"], extensions: ["png"], mimeTypes: ["image/png"]),
    .init(identifier: "com.compuserve.gif", parents: ["public.image"], extensions: ["gif"], mimeTypes: ["image/gif"]),
    .init(identifier: "public.tiff", parents: ["public.image"], extensions: ["tiff"], mimeTypes: ["image/tiff"]),
    .init(identifier: "com.microsoft.bmp", parents: ["public.image"], extensions: ["bmp"], mimeTypes: ["image/bmp"]),
    .init(identifier: "public.svg-image", parents: ["public.image"], extensions: ["svg"], mimeTypes: ["image/svg+xml"]),
    .init(identifier: "org.webmproject.webp", parents: ["public.image"], extensions: ["webp"], mimeTypes: ["image/webp"]),
    .init(identifier: "public.heic", parents: ["public.heif-standard"], extensions: ["heic"]),
    .init(identifier: "public.heif", parents: ["public.heif-standard"]),
    .init(identifier: "com.apple.icns", parents: ["public.image"]),
    .init(identifier: "com.microsoft.ico", parents: ["public.image"]),
    .init(identifier: "public.camera-raw-image", parents: ["public.image"]),
    .init(identifier: "public.3d-content", parents: ["public.content"]),
    .init(identifier: "com.pixar.universal-scene-description-mobile", parents: ["public.3d-content", "public.data"]),
    .init(identifier: "public.audiovisual-content", parents: ["public.data", "public.content"]),
    .init(identifier: "public.movie", parents: ["public.audiovisual-content"]),
    .init(identifier: "public.video", parents: ["public.movie"]),
    .init(identifier: "public.audio", parents: ["public.audiovisual-content"]),
    .init(identifier: "com.apple.quicktime-movie", parents: ["public.movie"], extensions: ["mov"], mimeTypes: ["video/quicktime"]),
    .init(identifier: "public.mpeg-4", parents: ["public.movie"], extensions: ["mp4"], mimeTypes: ["video/mp4"]),
    .init(identifier: "public.mp3", parents: ["public.audio"], extensions: ["mp3"], mimeTypes: ["audio/mpeg"]),
    .init(identifier: "public.mpeg-4-audio", parents: ["public.mpeg-4", "public.audio"]),
    .init(identifier: "public.mpeg", parents: ["public.movie"]),
    .init(identifier: "public.mpeg-2-video", parents: ["public.video"]),
    .init(identifier: "public.avi", parents: ["public.movie"]),
    .init(identifier: "public.aiff-audio", parents: ["public.aifc-audio"]),
    .init(identifier: "com.microsoft.waveform-audio", parents: ["public.audio"]),
    .init(identifier: "public.midi-audio", parents: ["public.audio"]),
    .init(identifier: "public.m3u-playlist", parents: ["public.text", "public.playlist"]),
    .init(identifier: "public.archive", parents: []),
    .init(identifier: "com.apple.archive", parents: ["public.data", "public.archive"]),
    .init(identifier: "public.disk-image", parents: []),
    .init(identifier: "public.zip-archive", parents: ["com.pkware.zip-archive"], extensions: ["zip"], mimeTypes: ["application/zip"]),
    .init(identifier: "public.bzip2-archive", parents: ["public.data", "public.archive"]),
    .init(identifier: "org.gnu.gnu-zip-archive", parents: ["public.data", "public.archive"], extensions: ["gz"], mimeTypes: ["application/x-gzip"]),
  ]

  @Test(arguments: declared)
  func conformancesAndTagsMatchApple(_ expected: Expectation) throws {
    let type = try #require(UTType(expected.identifier), "\(expected.identifier) is not declared")
    let declaration = try #require(TypeRegistry.shared.declaration(of: type))
    #expect(Set(declaration.conformsTo) == Set(expected.parents))
    #expect(type.isDeclared)
    if let ext = expected.extensions.first {
      #expect(type.preferredFilenameExtension == ext)
      #expect(UTType(filenameExtension: ext, conformingTo: .item) == type)
    }
    if let mime = expected.mimeTypes.first {
      #expect(type.preferredMIMEType == mime)
      #expect(UTType(mimeType: mime) == type)
    }
  }

  /// Full supertype sets from [M] (the tree minus the type itself).
  static let trees: [(extension: String, tree: [String])] = [
    ("h", ["public.c-header", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("c", ["public.c-source", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("hpp", ["public.c-plus-plus-header", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("cpp", ["public.c-plus-plus-source", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("m", ["public.objective-c-source", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("mm", ["public.objective-c-plus-plus-source", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    (
      "php",
      [
        "public.php-script", "public.shell-script", "public.script", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item",
        "public.content",
      ]
    ),
    (
      "py",
      [
        "public.python-script", "public.shell-script", "public.script", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item",
        "public.content",
      ]
    ),
    ("html", ["public.html", "public.text", "public.data", "public.item", "public.content"]),
    ("xhtml", ["public.xhtml", "public.xml", "public.text", "public.data", "public.item", "public.content"]),
    ("css", ["public.css", "public.text", "public.data", "public.item", "public.content"]),
    ("json", ["public.json", "public.text", "public.data", "public.item", "public.content"]),
    ("md", ["net.daringfireball.markdown", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    ("markdown", ["net.daringfireball.markdown", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
    (
      "js",
      [
        "com.netscape.javascript-source", "public.script", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item",
        "public.content", "public.executable",
      ]
    ),
    ("java", ["com.sun.java-source", "public.source-code", "public.plain-text", "public.text", "public.data", "public.item", "public.content"]),
  ]

  @Test(arguments: trees.map(\.extension))
  func extensionsGiveSpotlightsTypeAndTree(_ ext: String) throws {
    let expected = try #require(Self.trees.first { $0.extension == ext }).tree
    let type = try #require(UTType(filenameExtension: ext))
    #expect(type.identifier == expected[0])
    #expect(Set(type.supertypes.map(\.identifier)) == Set(expected.dropFirst()))
  }

  /// Every `UTType` constant names a declared type (a typo would make a constant nobody knows).
  @Test func everyConstantIsDeclared() {
    let constants: [UTType] = [
      .item, .content, .compositeContent, .data, .directory, .folder, .volume, .package, .bundle, .symbolicLink, .resolvable, .executable, .unixExecutable,
      .archive, .diskImage, .text, .plainText, .utf8PlainText, .utf16PlainText, .delimitedText, .commaSeparatedText, .tabSeparatedText, .rtf, .html, .xml,
      .yaml, .json, .css, .markdown, .sourceCode, .swiftSource, .cSource, .script, .shellScript, .pythonScript, .javaScript, .propertyList, .pdf, .rtfd, .epub,
      .image, .png, .jpeg, .gif, .tiff, .bmp, .svg, .webP, .heic, .audiovisualContent, .movie, .video, .audio, .mp3, .mpeg4Movie, .quickTimeMovie, .zip, .gzip,
      .tarArchive, .url, .fileURL, .font, .textBundle, .textPack,
    ]
    #expect(constants.count >= 60)
    for constant in constants {
      #expect(constant.isDeclared, "\(constant.identifier) is not declared")
      #expect(UTType(constant.identifier) == constant)
    }
  }

  @Test func registryHasAtLeastSixtyCoreTypes() {
    let core = TypeRegistry.shared.allTypes.filter { TypeRegistry.shared.origin(ofTypeWithIdentifier: $0.identifier) == .system }
    #expect(core.count >= 60)
  }

  @Test func quireDeclaresTextBundleAsAnAppWould() throws {
    let bundle = try #require(UTType("org.textbundle.package"))
    #expect(bundle.conforms(to: .package))
    #expect(bundle.preferredFilenameExtension == "textbundle")
    let pack = try #require(UTType("org.textbundle.textpack"))
    #expect(pack.preferredFilenameExtension == "textpack")
    #expect(pack.conforms(to: .zip))
  }
}
