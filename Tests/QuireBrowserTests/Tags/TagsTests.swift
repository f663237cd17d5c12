import Foundation
import QuireBrowser
import QuireSystem
import QuireTestSupport
import QuireTypes
import Testing

let attrToolsAvailable = Programs.isInstalled("/usr/bin/setfattr") && Programs.isInstalled("/usr/bin/getfattr")

/// Whether the temporary folder's file system keeps user extended attributes (tmpfs may not).
let userAttributesWork: Bool = {
  guard let folder = try? TemporaryFolder(prefix: "quire-xattr-probe") else { return false }
  defer { folder.remove() }
  guard let file = try? folder.write("x", to: "probe") else { return false }
  return (try? FileTags.setTags(["probe"], of: file)) != nil
}()

@Suite("Tags", .enabled(if: userAttributesWork, "the temporary folder's file system keeps no user extended attributes"))
final class TagsTests: BrowserTestCase {

  @Test func tagsRoundTripAndListByTag() throws {
    let file = try folder.write("# A\n", to: "a.md")
    try folder.write("# B\n", to: "b.md")
    #expect(try browser.tags(of: file).isEmpty)
    try browser.setTags(["work", " urgent ", "Work", ""], of: file)
    #expect(try browser.tags(of: file) == ["work", "urgent"])
    #expect(try browser.changeTags(of: file, adding: ["home"], removing: ["URGENT"]) == ["work", "home"])
    #expect(try browser.items(taggedWith: "WORK").map(\.name) == ["a.md"])
    #expect(try browser.allTags().map(\.tag) == ["home", "work"])
    try browser.setTags([], of: file)
    #expect(try browser.tags(of: file).isEmpty)
  }

  @Test func tagCountsAndTheTagFilterOfItemsAlreadyListedAgreeWithAListingOfTheirOwn() throws {
    let a = try folder.write("# A\n", to: "a.md")
    let b = try folder.write("# B\n", to: "b.md")
    try folder.write("# C\n", to: "c.md")
    try browser.setTags(["work", "home"], of: a)
    try browser.setTags(["Work"], of: b)
    let listed = try browser.items()
    #expect(DocumentBrowser.tagCounts(in: listed).map(\.tag) == ["work", "home"])
    #expect(DocumentBrowser.tagCounts(in: listed).map(\.count) == [2, 1])
    #expect(DocumentBrowser.tagCounts(in: listed).map(\.tag) == (try browser.allTags().map(\.tag)))
    #expect(DocumentBrowser.items(listed, taggedWith: "WORK").map(\.name) == ["a.md", "b.md"])
    #expect(DocumentBrowser.items(listed, taggedWith: "home").map(\.name) == (try browser.items(taggedWith: "home").map(\.name)))
    #expect(DocumentBrowser.items(listed, taggedWith: "none").isEmpty)
  }

  /// An ENOSPC at the attribute's write is `.diskFull`, as at every other write, and the old
  /// tags stay.
  @Test func aFullDiskWhileTaggingIsDiskFull() throws {
    let file = try folder.write("# A\n", to: "a.md")
    try FileTags.setTags(["old"], of: file)
    let plan = FaultPlan(failing: .write, with: .noSpace, under: folder.url.path)
    expectQuireError(.diskFull) { try plan.run { try FileTags.setTags(["new"], of: file) } }
    #expect(try FileTags.tags(of: file) == ["old"])
  }

  @Test func aSymbolicLinkCannotBeTaggedAndTheMessageSaysWhy() throws {
    let file = try folder.write("# A\n", to: "a.md")
    let link = folder.file("link.md")
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: file.path)
    let error = try #require(throws: QuireError.self) { try FileTags.setTags(["work"], of: link) }
    #expect(error.reason.contains("symbolic link") && !error.reason.contains("permission denied"), "\(error.reason)")
    #expect(try FileTags.tags(of: file).isEmpty, "the link's target was not tagged")
  }

  @Test func tagsThatAreNotUTF8CanBeListedKeptAndRemoved() throws {
    let file = try folder.write("# A\n", to: "a.md")
    // Another program wrote "café" in Latin-1 beside a UTF-8 tag.
    let latin1: [UInt8] = Array("caf".utf8) + [0xE9]
    guard case .success = SystemCalls.setAttribute(FileTags.attributeName, to: Data(latin1 + Array(",work".utf8)), of: file.path) else {
      throw TestFailure("the test could not set the attribute")
    }
    let tags = try browser.tags(of: file)
    #expect(tags.count == 2 && tags[1] == "work")
    // Adding a tag keeps the other program's bytes as they were.
    _ = try browser.changeTags(of: file, adding: ["home"])
    guard case .success(let data?) = SystemCalls.attribute(FileTags.attributeName, of: file.path) else { throw TestFailure("no attribute") }
    #expect(Array(data) == latin1 + Array(",work,home".utf8))
    // It can be removed by the name it is shown by.
    #expect(try browser.changeTags(of: file, removing: ["caf\\xE9"]) == ["work", "home"])
  }

  @Test func tagWithCommaIsRefused() throws {
    let file = try folder.write("x", to: "a.md")
    let error = try #require(throws: QuireError.self) { try browser.setTags(["a,b"], of: file) }
    #expect(error.code == .invalidArgument)
    #expect(try browser.tags(of: file).isEmpty)
  }

  @Test func missingFileIsAClearError() throws {
    let error = try #require(throws: QuireError.self) { try FileTags.tags(of: folder.file("none.md")) }
    #expect(error.code == .fileMissing)
  }

  @Test(.enabled(if: attrToolsAvailable, "needs setfattr and getfattr (Debian attr)"))
  func desktopToolsSeeQuiresTagsAndTheOtherWayRound() throws {
    let file = try folder.write("# F\n", to: "f.md")
    let set = try runTool("/usr/bin/setfattr", ["-n", "user.xdg.tags", "-v", "work,urgent", file.path])
    #expect(set.status == 0, "\(set.error)")
    #expect(try browser.items().first?.tags == ["work", "urgent"])
    try browser.changeTags(of: file, adding: ["quire"])
    let get = try runTool("/usr/bin/getfattr", ["--only-values", "-n", "user.xdg.tags", file.path])
    #expect(get.output == "work,urgent,quire")
  }
}

@Suite("Tags without user attributes")
struct NoUserAttributeTests {
  @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status"), "needs /proc"))
  func procFileSaysWhyItCannotBeTagged() throws {
    // /proc keeps no user extended attributes: the error must say so, not "system call failed".
    let error = try #require(throws: QuireError.self) { try FileTags.setTags(["x"], of: URL(fileURLWithPath: "/proc/self/status")) }
    #expect(error.code == .unsupportedType)
    #expect(error.reason.contains("'status'") && error.reason.contains("extended attributes"))
  }
}
