import Foundation
import QuireTestSupport
import Testing

/// Acceptance 1–4, in a real browser: one `quire serve` process and one headless Chromium
/// (Debian's, through chromedriver), the checks run in order as a person would use the page.
///
/// Screenshots go to `$TMPDIR/quire-serve-screenshots/` for a person to look at.
@Suite(
  "quire serve in Chromium", .serialized,
  .enabled(if: WebDriver.isAvailable, "Debian's chromium and chromium-driver are not installed (scripts/setup installs them)"))
final class BrowserPageTests: ServedFolderTestCase {
  init() throws {
    try super.init(
      prefix: "quire-serve-page",
      files: [
        "ノート.md": "# 日本語のノート\n\n吾輩は猫である。名前はまだ無い。\n\n- 東京\n- 京都\n",
        "plan.md": "# Plan\n\nThe quarterly **budget** review is on Friday.\n\n1. Numbers\n2. People\n",
        "notes.txt": "shopping list\napples\npears\n",
        "shared.md": "line one\nline two\nline three\n",
      ])
  }

  static let screenshots: URL = {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quire-serve-screenshots")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }()

  func saveScreenshot(_ driver: WebDriver, _ name: String) async throws -> URL {
    let png = try await driver.screenshot()
    let url = Self.screenshots.appendingPathComponent(name)
    try png.write(to: url)
    print("screenshot: \(url.path)")
    return url
  }

  /// Whether the page lists a document named `name`.
  static let listsScript = "return [...document.querySelectorAll('#doc-list .doc .name')].some(n => n.textContent === arguments[0])"

  /// Clicks the document named `name` in the list.
  func selectDocument(_ name: String, _ driver: WebDriver) async throws {
    try await driver.wait(for: "\(name) in the list", until: Self.listsScript, [name])
    try await driver.execute(
      "[...document.querySelectorAll('#doc-list .doc')].find(n => n.querySelector('.name').textContent === arguments[0]).click()", [name])
    try await driver.wait(for: "\(name) selected", until: "return document.getElementById('preview-title').textContent === arguments[0]", [name])
  }

  /// Answers the page's dialog with `value` in its first field.
  func answerDialog(_ value: String, _ driver: WebDriver) async throws {
    try await driver.wait(for: "the dialog", until: "return document.getElementById('dialog').open")
    try await driver.clear("#dialog-fields input")
    try await driver.type(value, into: "#dialog-fields input")
    try await driver.click("#dialog-ok")
    try await driver.wait(for: "the dialog to close", until: "return !document.getElementById('dialog').open")
  }

  @Test func thePageListsSearchesChangesAndEditsDocuments() async throws {
    let quire = try #require(Programs.quire)
    let pdf = try await Programs.run(quire, ["make-sample-pdf", served.appendingPathComponent("guide.pdf").path], environment: home.environment)
    try #require(pdf.status == 0, "\(pdf.error)")

    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let driver = try await WebDriver.start(in: folder.url)
    do {
      try await checkPage(driver, server: server)
    } catch {
      _ = try? await saveScreenshot(driver, "failure.png")
      await driver.quit()
      Issue.record("\(error)\nserver said: \(server.errors.text)")
      return
    }
    await driver.quit()
  }

  func checkPage(_ driver: WebDriver, server: ServeProcess) async throws {
    try await driver.navigate(to: server.address)

    // 1. Every document is listed with a thumbnail that is a real image.
    let names = ["guide.pdf", "notes.txt", "plan.md", "shared.md", "ノート.md"]
    for name in names { try await driver.wait(for: "\(name) in the list", until: Self.listsScript, [name], limit: .seconds(60)) }
    try await driver.wait(
      for: "every thumbnail to load as an image",
      until: "const imgs = [...document.querySelectorAll('#doc-list img')]; return imgs.length === 5 && imgs.every(i => i.complete && i.naturalWidth > 0)",
      limit: .seconds(90))
    let widths = try await driver.execute("return [...document.querySelectorAll('#doc-list img')].map(i => i.naturalWidth)") as? [Int]
    #expect((widths ?? []).allSatisfy { $0 > 0 }, "thumbnail widths \(String(describing: widths))")
    let url = URL(string: server.address)!
    #expect(try await driver.execute("return location.search") as? String == "", "the token left the address bar")
    #expect(url.query?.hasPrefix("token=") == true)
    try await selectDocument("ノート.md", driver)
    try await driver.wait(for: "the preview frame to load", until: "return document.getElementById('preview-frame').src.includes('doc=')")
    _ = try await saveScreenshot(driver, "1-listing.png")

    // Long work shows progress: the thumbnails of the new folder and the search index (a page
    // that connects late is told where each stands).
    try await driver.wait(
      for: "progress of thumbnails and indexing", until: "return document.body.dataset.progressSeen === 'index thumbnails'", limit: .seconds(60))

    // Keyboard and labels: every document has an accessible name, arrows move between them
    // and Enter opens the preview.
    let unlabelled = try await driver.execute("return [...document.querySelectorAll('#doc-list .doc')].filter(n => !n.getAttribute('aria-label')).length")
    #expect(unlabelled as? Int == 0)
    let order = try await driver.execute("return [...document.querySelectorAll('#doc-list .doc .name')].map(n => n.textContent)") as? [String] ?? []
    try await driver.execute("document.querySelector('#doc-list .doc').focus()")
    try await driver.press("\u{E014}")  // ArrowRight
    try await driver.press("\u{E007}")  // Enter
    try await driver.wait(
      for: "the second document's preview, reached by keyboard", until: "return document.getElementById('preview-title').textContent === arguments[0]",
      [order.count > 1 ? order[1] : ""])

    // Live: a file written by another program appears without a reload.
    try Data("# From outside\n\nwritten by another program\n".utf8).write(to: served.appendingPathComponent("outside.md"))
    try await driver.wait(for: "outside.md to appear live", until: Self.listsScript, ["outside.md"])

    // 4. The page and a quire REPL edit the same file at once: neither overwrites the other.
    let shared = served.appendingPathComponent("shared.md")
    try await selectDocument("shared.md", driver)
    try await driver.click("[data-action=edit]")
    try await driver.wait(for: "the editor", until: "return document.getElementById('editor').value.startsWith('line one')")
    // Ctrl+End (then release the modifier) and type a line at the end, as a person would.
    try await driver.type("\u{E009}\u{E010}\u{E000}page line\n", into: "#editor")
    try await driver.wait(for: "the edit to reach the server", until: "return document.getElementById('editor-pane').dataset.state === 'edited'")

    let repl = try startREPL(file: shared, home: home)
    repl.write("1s/one/ONE/\nw\n")
    try await waitFor("the REPL's save") { try String(contentsOf: shared, encoding: .utf8).contains("line ONE") }
    try await driver.wait(for: "the page to show the conflict", until: "return !document.getElementById('conflict').hidden")
    let mine = try await driver.execute("return document.getElementById('editor').value") as? String
    #expect(mine == "line one\nline two\nline three\npage line\n", "the page kept its edits through the conflict")
    _ = try await saveScreenshot(driver, "4-conflict.png")
    try await driver.click("[data-resolve=merge]")
    try await driver.wait(
      for: "the merged text", until: "return document.getElementById('editor').value === 'line ONE\\nline two\\nline three\\npage line\\n'")
    try await driver.click("#save-button")
    try await waitFor("the page's save of the merge") {
      try String(contentsOf: shared, encoding: .utf8) == "line ONE\nline two\nline three\npage line\n"
    }
    // The REPL's document, clean since its save, presents the file: it reloads the merge when
    // its presenter hears of the page's save and edits that; if its next w comes first, the
    // w finds the change and refuses (script mode stops on the error). Either way the merge
    // is never overwritten.
    repl.write("3s/three/THREE/\nw\nq\n")
    let status = repl.finish()
    let afterREPL = try String(contentsOf: shared, encoding: .utf8)
    if status == 0 {
      #expect(afterREPL == "line ONE\nline two\nline THREE\npage line\n", "the REPL edited the merge it reloaded")
    } else {
      #expect(afterREPL == "line ONE\nline two\nline three\npage line\n", "the merge survived the REPL's refused w: \(repl.errors.text)")
    }
    _ = try await saveScreenshot(driver, "5-merged.png")

    // 3. Rename, tag, duplicate and trash from the page: the files change as mv, getfattr
    // and gio trash --list see them.
    let notes = served.appendingPathComponent("notes.txt")
    let inode = try FileManager.default.attributesOfItem(atPath: notes.path)[.systemFileNumber] as? UInt64
    try await selectDocument("notes.txt", driver)
    try await driver.click("[data-action=rename]")
    try await answerDialog("shopping.txt", driver)
    let shopping = served.appendingPathComponent("shopping.txt")
    try await waitFor("notes.txt renamed to shopping.txt") { FileManager.default.fileExists(atPath: shopping.path) }
    #expect(!FileManager.default.fileExists(atPath: notes.path))
    #expect(try FileManager.default.attributesOfItem(atPath: shopping.path)[.systemFileNumber] as? UInt64 == inode, "a rename, as mv does")
    try await driver.wait(for: "shopping.txt listed", until: Self.listsScript, ["shopping.txt"])

    try await selectDocument("plan.md", driver)
    try await driver.click("[data-action=tags]")
    try await answerDialog("work, 日本", driver)
    try await driver.wait(for: "the tag in the sidebar", until: "return [...document.querySelectorAll('#tag-list button')].some(b => b.textContent === 'work')")
    let getfattr = try #require(Programs.find("getfattr"), "getfattr (attr) is installed by scripts/setup")
    let tags = try await Programs.run(
      getfattr, ["--only-values", "-n", "user.xdg.tags", served.appendingPathComponent("plan.md").path], environment: home.environment)
    #expect(tags.status == 0, "\(tags.error)")
    #expect(tags.output.split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.sorted() == ["work", "日本"])

    try await driver.click("[data-action=duplicate]")
    try await driver.wait(for: "the duplicate listed", until: Self.listsScript, ["plan copy.md"])
    try await selectDocument("plan copy.md", driver)
    try await driver.click("[data-action=trash]")
    let copy = served.appendingPathComponent("plan copy.md")
    try await waitFor("plan copy.md trashed") { !FileManager.default.fileExists(atPath: copy.path) }
    try await driver.wait(for: "plan copy.md gone from the list", until: "return !(\(Self.listsScript.dropFirst("return ".count)))", ["plan copy.md"])
    let dbus = try #require(Programs.find("dbus-run-session"), "dbus-run-session (dbus) is installed by scripts/setup")
    let trashList = try await Programs.run(dbus, ["--", "gio", "trash", "--list"], environment: home.environment)
    #expect(trashList.output.contains(copy.path), "gio trash --list: \(trashList.output) \(trashList.error)")
    _ = try await saveScreenshot(driver, "3-actions.png")

    // 2. Searching a word shows the matching documents with the hit marked; opening one
    // shows its preview.
    try await driver.clear("#search")
    try await driver.type("budget\u{E007}", into: "#search")
    try await driver.wait(
      for: "a search hit for plan.md with 'budget' marked",
      until: """
        const hits = [...document.querySelectorAll('#hit-list li')];
        return !document.getElementById('hit-list').hidden && hits.length >= 1
          && hits.some(h => h.dataset.doc.endsWith('plan.md') && [...h.querySelectorAll('mark')].some(m => m.textContent.toLowerCase() === 'budget'))
          && !hits.some(h => h.dataset.doc.endsWith('shopping.txt'))
        """)
    try await driver.execute("[...document.querySelectorAll('#hit-list li')].find(h => h.dataset.doc.endsWith('plan.md')).querySelector('button').click()")
    try await driver.wait(for: "plan.md's preview", until: "return document.getElementById('preview-frame').src.includes('plan.md')")
    let preview =
      try await driver.executeAsync(
        """
        const done = arguments[arguments.length - 1];
        fetch(document.getElementById('preview-frame').src).then(r => r.text().then(t => done({csp: r.headers.get('content-security-policy'), text: t})))
        """) as? [String: Any]
    #expect((preview?["text"] as? String)?.contains("<strong>budget</strong>") == true)
    #expect((preview?["csp"] as? String)?.contains("sandbox") == true)
    #expect(try await driver.execute("return document.getElementById('preview-frame').getAttribute('sandbox')") as? String == "")
    _ = try await saveScreenshot(driver, "6-search.png")
    try await driver.clear("#search")
    try await driver.type("\u{E007}", into: "#search")
  }
}
