import QuireTypes
import Testing

/// `dyn.` identifiers against values macOS produced.
///
/// Every value below was printed by `mdls -name kMDItemContentType FILE` on a Mac for a file
/// with an extension no application declares:
/// - [B] github.com/BABA983/Uniform-Type-Identifiers-Collection, `UTIs.md` (commit
///   4995758b6aea9cadfd354abf8e624f495ca76470): .gitattributes, .gitconfig, .gitignore, .asp,
///   .aspx, .cshtml, .bat, .cs, .go, .ini, .less.
/// - [Q] github.com/whomwah/qlstephen issue #134 ("It's possible to add the .bat files?"):
///   `mdls` prints `dyn.ah62d4rv4ge80e2py` for install.bat.
@Suite("Dynamic type identifiers")
struct DynamicTypeTests {
  static let macOSValues: [(tag: String, identifier: String)] = [
    ("gitattributes", "dyn.ah62d4rv4ge80s4pyqf4hk6xmqm41k3px"),  // [B]
    ("gitconfig", "dyn.ah62d4rv4ge80s4pyqr1063xmq6"),  // [B]
    ("gitignore", "dyn.ah62d4rv4ge80s4pyrfx0655wqy"),  // [B]
    ("asp", "dyn.ah62d4rv4ge80c65u"),  // [B]
    ("aspx", "dyn.ah62d4rv4ge80c65uta"),  // [B]
    ("cshtml", "dyn.ah62d4rv4ge80g65ksv002"),  // [B]
    ("bat", "dyn.ah62d4rv4ge80e2py"),  // [B] and [Q]
    ("cs", "dyn.ah62d4rv4ge80g62"),  // [B]
    ("go", "dyn.ah62d4rv4ge80s52"),  // [B]
    ("ini", "dyn.ah62d4rv4ge80w5xm"),  // [B]
    ("less", "dyn.ah62d4rv4ge8023pxsq"),  // [B]
  ]

  @Test(arguments: macOSValues.map(\.tag))
  func encodingMatchesMacOS(_ tag: String) throws {
    let expected = try #require(Self.macOSValues.first { $0.tag == tag }).identifier
    #expect(DynamicTypeIdentifier.make(tag: tag, tagClass: .filenameExtension, conformingTo: ["public.data"]) == expected)
  }

  @Test(arguments: macOSValues.map(\.identifier))
  func decodingGivesTheTagBack(_ identifier: String) throws {
    let contents = try #require(DynamicTypeIdentifier.decode(identifier))
    let tag = try #require(Self.macOSValues.first { $0.identifier == identifier }).tag
    #expect(contents.tags[.filenameExtension] == [tag])
    #expect(contents.conformsTo == ["public.data"])
  }

  @Test func anExtensionNobodyDeclaresGetsTheMacOSIdentifier() throws {
    // A registry without shared-mime-info, where .bat is declared by nobody, as on a Mac.
    let registry = TypeRegistry(configuration: .init(dataDirectories: []))
    let type = try #require(registry.preferredType(forTag: "bat", tagClass: .filenameExtension, conformingTo: .data))
    #expect(type.identifier == "dyn.ah62d4rv4ge80e2py")
    #expect(type.conforms(to: .data))
    #expect(type.tags[.filenameExtension] == ["bat"])
  }

  @Test func mimeTypesAndOtherConformancesRoundTrip() throws {
    let id = DynamicTypeIdentifier.make(tag: "application/x-quire-test", tagClass: .mimeType, conformingTo: ["public.text"])
    let contents = try #require(DynamicTypeIdentifier.decode(id))
    #expect(contents.conformsTo == ["public.text"])
    #expect(contents.tags[.mimeType] == ["application/x-quire-test"])
    // Separators inside a tag survive the trip.
    let odd = DynamicTypeIdentifier.make(tag: "a:b=c\\d", tagClass: .filenameExtension, conformingTo: [])
    #expect(DynamicTypeIdentifier.decode(odd)?.tags[.filenameExtension] == ["a:b=c\\d"])
  }

  @Test(arguments: ["dyn.", "dyn.a", "dyn.aiiii", "public.data", "dyn.ah62d4rv4ge80e2p!"])
  func malformedIdentifiersDoNotDecode(_ identifier: String) {
    #expect(DynamicTypeIdentifier.decode(identifier) == nil)
  }
}
