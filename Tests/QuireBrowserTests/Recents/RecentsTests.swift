import Foundation
import QuireBrowser
import QuireTestSupport
import QuireTypes
import Testing

/// GTK's recent manager needs a display (its settings come from the screen): Xvfb gives one.
let gtkAvailable: Bool = {
  guard Programs.isInstalled("/usr/bin/xvfb-run"), Programs.isInstalled("/usr/bin/python3") else { return false }
  return (try? runTool("/usr/bin/python3", ["-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"]).status) == 0
}()

/// Runs a Python snippet with GTK's recent manager under Xvfb and returns what it printed.
func withGtkRecentManager(_ body: String, dataHome: String) throws -> ProcessResult {
  let script = """
    import sys, time, gi
    gi.require_version('Gtk', '3.0')
    from gi.repository import Gtk, GLib
    GLib.set_prgname('gedit')
    Gtk.init()
    manager = Gtk.RecentManager.get_default()
    def settle():
        context = GLib.MainContext.default()
        end = time.time() + 0.5
        while time.time() < end:
            context.iteration(False)
            time.sleep(0.01)
    \(body)
    """
  return try runTool("/usr/bin/xvfb-run", ["-a", "/usr/bin/python3", "-c", script], environment: ["XDG_DATA_HOME": dataHome])
}

@Suite("Recent documents")
final class RecentsTests: BrowserTestCase {

  var xbel: URL { URL(fileURLWithPath: environment["XDG_DATA_HOME"]!).appendingPathComponent("recently-used.xbel") }

  @Test func addedDocumentIsListedOnceWithQuireAsApplication() throws {
    let file = try folder.write("# A\n", to: "a.md")
    try browser.noteRecentDocument(at: file)
    try browser.noteRecentDocument(at: file)
    let entries = try browser.recentItems()
    #expect(entries.map(\.url.path) == [file.path])
    #expect(entries[0].status == .available && entries[0].applications == ["quire"] && entries[0].mimeType == "text/markdown")
    let text = try String(contentsOf: xbel, encoding: .utf8)
    #expect(text.contains("count=\"2\""))
  }

  @Test func renamedAndMovedFileIsFoundAgainAndDeletedOneIsMarkedGone() throws {
    try FileManager.default.createDirectory(at: folder.file("old"), withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: folder.file("new"), withIntermediateDirectories: true)
    let file = try folder.write("# Plan\n", to: "old/plan.md")
    let other = try folder.write("# Other\n", to: "old/other.md")
    try browser.noteRecentDocument(at: file)
    try browser.noteRecentDocument(at: other)
    // As `mv` would, with no Quire running.
    #expect(rename(file.path, folder.file("new/renamed.md").path) == 0)
    #expect(unlink(other.path) == 0)
    let entries = try browser.recentItems()
    let moved = try #require(entries.first { $0.name == "renamed.md" })
    #expect(moved.status == .moved && moved.previousURL?.path == file.path)
    let gone = try #require(entries.first { $0.name == "other.md" })
    #expect(gone.status == .missing)
    // The list itself now has the new path, so GTK's list follows too.
    let text = try String(contentsOf: xbel, encoding: .utf8)
    #expect(text.contains("new/renamed.md") && !text.contains("old/plan.md"))
    #expect(try browser.recentItems().first { $0.name == "renamed.md" }?.status == .available)
  }

  @Test func fileCopiedElsewhereIsFoundByContent() throws {
    let file = try folder.write("# Unique content 9f2c\n", to: "c.md")
    try browser.noteRecentDocument(at: file)
    try Data("# Unique content 9f2c\n".utf8).write(to: folder.file("copy-of-c.md"))
    #expect(unlink(file.path) == 0)
    #expect(try browser.recentItems().first?.url.lastPathComponent == "copy-of-c.md")
  }

  @Test func othersEntriesAreKeptByteForByte() throws {
    let theirs = """
      <?xml version="1.0" encoding="UTF-8"?>
      <xbel version="1.0"
            xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
            xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
      >
        <bookmark href="file:///srv/x%20y.txt" added="2025-01-02T03:04:05.000006Z" modified="2025-01-02T03:04:05.000006Z" visited="2025-01-02T03:04:05.000006Z">
          <info>
            <metadata owner="http://freedesktop.org">
              <mime:mime-type type="text/plain"/>
              <bookmark:groups>
                <bookmark:group>gedit</bookmark:group>
              </bookmark:groups>
              <bookmark:applications>
                <bookmark:application name="gedit" exec="&apos;gedit %u&apos;" modified="2025-01-02T03:04:05.000006Z" count="3"/>
              </bookmark:applications>
            </metadata>
          </info>
        </bookmark>
      </xbel>
      """
    try FileManager.default.createDirectory(at: xbel.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(theirs.utf8).write(to: xbel)
    let file = try folder.write("x", to: "q.md")
    try browser.noteRecentDocument(at: file)
    let text = try String(contentsOf: xbel, encoding: .utf8)
    let block = theirs.components(separatedBy: "\n").dropFirst(5).dropLast().joined(separator: "\n")
    #expect(text.contains(block))
    let entries = try browser.recentItems()
    #expect(entries.map(\.name) == ["q.md", "x y.txt"])
    #expect(entries[1].applications == ["gedit"] && entries[1].status == .missing && !entries[1].isFollowed)
  }

  /// Another program's entry, with `extra` inside its `<info>`.
  func theirEntry(href: String, extra: [UInt8] = []) -> [UInt8] {
    Array(#"<bookmark href="\#(href)" added="2025-01-02T03:04:05Z" modified="2025-01-02T03:04:05Z" visited="2025-01-02T03:04:05Z"><info>"#.utf8)
      + extra + Array(#"</info></bookmark>"#.utf8)
  }

  func xbelFile(_ body: [UInt8]) throws {
    try FileManager.default.createDirectory(at: xbel.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<xbel version=\"1.0\">\n".utf8) + body + Array("\n</xbel>\n".utf8)).write(to: xbel)
  }

  @Test func bookmarksInCommentsAreNotBookmarksAndOthersBytesStayWhenNotUTF8() throws {
    // A commented-out bookmark, and another program's entry holding Latin-1 bytes.
    let latin1: [UInt8] = Array("<title>caf".utf8) + [0xE9] + Array("</title>".utf8)
    let theirs = theirEntry(href: "file:///srv/theirs.txt", extra: latin1)
    try xbelFile(Array("<!-- <bookmark href=\"file:///srv/commented.txt\"></bookmark> -->\n".utf8) + theirs)
    #expect(try browser.recentItems().map(\.name) == ["theirs.txt"])
    let file = try folder.write("x", to: "q.md")
    try browser.noteRecentDocument(at: file)
    let bytes = try [UInt8](Data(contentsOf: xbel))
    #expect(bytes.firstRange(of: theirs) != nil, "the other program's entry changed")
    #expect(bytes.firstRange(of: Array("<!-- <bookmark href=\"file:///srv/commented.txt\"></bookmark> -->".utf8)) != nil, "the comment was dropped")
    #expect(try browser.recentItems().map(\.name).sorted() == ["q.md", "theirs.txt"])
  }

  /// Found by fuzz-xbel: noting a file whose entry another program wrote self-closing
  /// (`<bookmark href="…"/>`) put the new attributes after the "/" and left a list that no
  /// longer parsed.
  @Test func aSelfClosingEntryForTheSameFileBecomesAnElementWithQuiresMetadata() throws {
    let file = try folder.write("x", to: "q.md")
    let href = file.absoluteString
    let theirs = theirEntry(href: "file:///srv/theirs.txt")
    // As GLib writes the list: with its namespaces, which GTK needs to read the metadata.
    try FileManager.default.createDirectory(at: xbel.deletingLastPathComponent(), withIntermediateDirectories: true)
    let header = """
      <?xml version="1.0" encoding="UTF-8"?>
      <xbel version="1.0" xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks" \
      xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info">

      """
    try Data(Array(header.utf8) + Array("<bookmark href=\"\(href)\"/>\n".utf8) + theirs + Array("\n</xbel>\n".utf8)).write(to: xbel)
    try browser.noteRecentDocument(at: file)
    let entries = try browser.recentItems()
    #expect(entries.map(\.name).sorted() == ["q.md", "theirs.txt"])
    #expect(entries.first { $0.name == "q.md" }?.applications == ["quire"])
    #expect(try [UInt8](Data(contentsOf: xbel)).firstRange(of: theirs) != nil, "the other program's entry changed")
    // Noted again: still one entry, still a list.
    try browser.noteRecentDocument(at: file)
    #expect(try browser.recentItems().map(\.name).sorted() == ["q.md", "theirs.txt"])
    if gtkAvailable {
      let listed = try withGtkRecentManager(
        """
        settle()
        print(sorted(item.get_uri() for item in manager.get_items()))
        """, dataHome: environment["XDG_DATA_HOME"]!)
      #expect(listed.output.contains(href), "GTK's recent manager does not read the list: \(listed.output)")
    }
  }

  @Test func aValidListOfHundredsOfMegabytesIsRead() throws {
    // 100 MB of another program's data in one entry.
    let big = Array("<metadata owner=\"x\">".utf8) + [UInt8](repeating: UInt8(ascii: "y"), count: 100 << 20) + Array("</metadata>".utf8)
    try xbelFile(theirEntry(href: "file:///srv/big.txt", extra: big))
    let file = try folder.write("x", to: "q.md")
    try browser.noteRecentDocument(at: file)
    #expect(try browser.recentItems().map(\.name).sorted() == ["big.txt", "q.md"])
    let size = try FileManager.default.attributesOfItem(atPath: xbel.path)[.size] as? Int ?? 0
    #expect(size > 100 << 20, "the big entry was cut")
  }

  @Test func listThatIsNotXBELIsLeftAlone() throws {
    try FileManager.default.createDirectory(at: xbel.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("not xml at all".utf8).write(to: xbel)
    let file = try folder.write("x", to: "q.md")
    let error = try #require(throws: QuireError.self) { try browser.noteRecentDocument(at: file) }
    #expect(error.code == .invalidContent)
    #expect(try String(contentsOf: xbel, encoding: .utf8) == "not xml at all")
  }

  @Test(.enabled(if: gtkAvailable, "needs python3-gi, gir1.2-gtk-3.0 and xvfb"))
  func gtkListsWhatQuireAddedAndQuireListsWhatGtkAdded() throws {
    let file = try folder.write("# Mine\n", to: "mine.md")
    let theirs = try folder.write("theirs", to: "theirs.txt")
    try browser.noteRecentDocument(at: file)
    let gtk = try withGtkRecentManager(
      """
      manager.add_item('file://\(theirs.path)')
      settle()
      for item in manager.get_items():
          print(item.get_uri(), item.get_mime_type(), ','.join(item.get_applications()))
      """, dataHome: environment["XDG_DATA_HOME"]!)
    #expect(gtk.status == 0, "\(gtk.error)")
    #expect(gtk.output.contains("file://\(file.path) text/markdown quire"))
    let names = try browser.recentItems().map(\.name)
    #expect(Set(names) == ["mine.md", "theirs.txt"])
  }
}
