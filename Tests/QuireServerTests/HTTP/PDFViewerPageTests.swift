import Foundation
import QuireTestSupport
import Testing

/// Issue 30's acceptance 3 in a real browser: a 4-page PDF selected in `quire serve`'s page
/// shows its pages drawn and a strip of 4 thumbnails; find marks a word on the drawn page; a
/// highlight added over selected text is saved into the file (read back with pypdf).
///
/// Screenshots go to `$TMPDIR/quire-serve-screenshots/` for a person to look at.
@Suite(
  "PDF view in Chromium", .serialized,
  .enabled(if: WebDriver.isAvailable && Programs.isInstalled("/usr/bin/python3"), "Debian's chromium, chromium-driver and python3 are needed"))
final class PDFViewerPageTests: ServedFolderTestCase {
  init() throws { try super.init(prefix: "quire-serve-pdf", files: [:]) }

  static let python = URL(fileURLWithPath: "/usr/bin/python3")

  /// Four US Letter pages by reportlab: page N says "Page N", page 3 also has "otter".
  func makeFourPages(at url: URL) async throws {
    let script = """
      import sys
      from reportlab.pdfgen import canvas
      c = canvas.Canvas(sys.argv[1], pagesize=(612, 792))
      for n in range(1, 5):
          c.setFont("Helvetica", 24)
          c.drawString(72, 700, f"Page {n} of the river guide")
          c.setFont("Helvetica", 14)
          c.drawString(72, 660, "The otter swims in the river." if n == 3 else "Herons wait at the bank.")
          c.bookmarkPage(f"p{n}")
          c.addOutlineEntry(f"Chapter {n}", f"p{n}", level=0)
          c.showPage()
      c.save()
      """
    let result = try await ChildProcess.run(Self.python, ["-c", script, url.path])
    try #require(result.status == 0, "reportlab: \(result.error)")
  }

  func saveScreenshot(_ driver: WebDriver, _ name: String) async throws {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("quire-serve-screenshots")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let url = folder.appendingPathComponent(name)
    try await driver.screenshot().write(to: url)
    print("screenshot: \(url.path)")
  }

  @Test func aPDFShowsDrawnPagesThumbnailsFindAndSavesAHighlight() async throws {
    let pdf = served.appendingPathComponent("guide.pdf")
    try await makeFourPages(at: pdf)
    let original = try Data(contentsOf: pdf)
    let server = try await ServeProcess.start(serving: [served], home: home, in: folder.url)
    defer { server.stop() }
    let driver = try await WebDriver.start(in: folder.url)
    do {
      try await check(driver, server: server, pdf: pdf, original: original)
    } catch {
      try? await saveScreenshot(driver, "pdf-failure.png")
      await driver.quit()
      Issue.record("\(error)\nserver said: \(server.errors.text)")
      return
    }
    await driver.quit()
  }

  func check(_ driver: WebDriver, server: ServeProcess, pdf: URL, original: Data) async throws {
    try await driver.navigate(to: server.address)
    try await driver.wait(
      for: "guide.pdf in the list", until: "return [...document.querySelectorAll('#doc-list .doc .name')].some(n => n.textContent === 'guide.pdf')",
      limit: .seconds(60))
    try await driver.execute("[...document.querySelectorAll('#doc-list .doc')].find(n => n.querySelector('.name').textContent === 'guide.pdf').click()")

    // A strip of 4 thumbnails, each a real image.
    try await driver.wait(
      for: "4 page thumbnails",
      until: "const imgs = [...document.querySelectorAll('#pdf-strip img')]; return imgs.length === 4 && imgs.every(i => i.complete && i.naturalWidth > 0)",
      limit: .seconds(90))
    // Pages drawn as they scroll into view, at least 500 pixels wide.
    for page in 0..<4 {
      try await driver.execute("document.querySelector(`.pdf-page[data-page=\"${arguments[0]}\"]`).scrollIntoView()", [page])
      try await driver.wait(
        for: "page \(page + 1) drawn",
        until: "const i = document.querySelector(`.pdf-page[data-page=\"${arguments[0]}\"] img`); return !!i && i.complete && i.naturalWidth >= 500",
        [page], limit: .seconds(60))
    }
    let outline = try await driver.execute("return [...document.querySelectorAll('#pdf-outline button')].map(b => b.textContent)") as? [String]
    #expect(outline == ["Chapter 1", "Chapter 2", "Chapter 3", "Chapter 4"])
    try await saveScreenshot(driver, "pdf-1-pages.png")

    // Find marks "otter" on the drawn page 3.
    try await driver.type("otter", into: "#pdf-find")
    try await driver.click("#pdf-find-button")
    try await driver.wait(for: "a find hit on page 3", until: "return document.querySelectorAll('.pdf-page[data-page=\"2\"] .pdf-hit').length === 1")
    let hitInside =
      try await driver.execute(
        """
        const hit = document.querySelector('.pdf-hit').getBoundingClientRect();
        const page = document.querySelector('.pdf-page[data-page="2"]').getBoundingClientRect();
        return hit.width > 5 && hit.left >= page.left && hit.right <= page.right && hit.top >= page.top && hit.bottom <= page.bottom;
        """) as? Bool
    #expect(hitInside == true)
    try await saveScreenshot(driver, "pdf-2-find.png")

    // Select "otter" in the page's text layer and highlight it: saved into the file.
    try await driver.wait(
      for: "page 3's text layer",
      until: "return [...document.querySelectorAll('.pdf-page[data-page=\"2\"] .pdf-text span')].some(s => s.textContent.trim() === 'otter')")
    try await driver.execute(
      """
      const span = [...document.querySelectorAll('.pdf-page[data-page="2"] .pdf-text span')].find(s => s.textContent.trim() === 'otter');
      const range = document.createRange();
      range.selectNodeContents(span);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      """)
    try await driver.click("#pdf-highlight")
    try await driver.wait(
      for: "the highlight saved", until: "return document.getElementById('pdf-status').textContent.startsWith('Saved: 1 annotation')", limit: .seconds(60))
    let saved = try Data(contentsOf: pdf)
    #expect(saved.prefix(original.count) == original, "the save is an incremental update")
    let check = """
      import sys, pypdf
      r = pypdf.PdfReader(sys.argv[1])
      for i, page in enumerate(r.pages):
          for a in page.get("/Annots", []):
              a = a.get_object()
              print(i, a["/Subtype"], "/AP" in a, a.get("/Contents"))
      """
    let found = try await ChildProcess.run(Self.python, ["-c", check, pdf.path])
    #expect(found.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2 /Highlight True otter", "\(found.output) \(found.error)")
    try await driver.wait(
      for: "page 3 drawn again", until: "const i = document.querySelector('.pdf-page[data-page=\"2\"] img'); return i.complete && i.naturalWidth >= 500")
    try await saveScreenshot(driver, "pdf-3-highlight.png")

    // Undo takes the highlight away (saved as another update), redo puts it back.
    let undoTitle = try await driver.execute("const b = document.getElementById('pdf-undo'); return b.disabled ? '' : b.textContent") as? String
    #expect(undoTitle?.hasPrefix("Undo ") == true, "\(undoTitle ?? "")")
    try await driver.click("#pdf-undo")
    try await driver.wait(
      for: "the undo saved", until: "return document.getElementById('pdf-status').textContent.startsWith('Undone, saved: 0 annotations')", limit: .seconds(60))
    let undone = try await ChildProcess.run(Self.python, ["-c", check, pdf.path])
    #expect(undone.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(undone.output) \(undone.error)")
    #expect(try Data(contentsOf: pdf).prefix(saved.count) == saved, "the undo is another incremental update")
    let buttons = try await driver.execute("return [document.getElementById('pdf-undo').disabled, document.getElementById('pdf-redo').disabled]") as? [Bool]
    #expect(buttons == [true, false], "nothing left to undo; the highlight to redo")
    try await driver.click("#pdf-redo")
    try await driver.wait(
      for: "the redo saved", until: "return document.getElementById('pdf-status').textContent.startsWith('Redone, saved: 1 annotation')", limit: .seconds(60))
    let redone = try await ChildProcess.run(Self.python, ["-c", check, pdf.path])
    #expect(redone.output.trimmingCharacters(in: .whitespacesAndNewlines) == "2 /Highlight True otter", "\(redone.output) \(redone.error)")
    try await driver.wait(
      for: "page 3 drawn after the redo",
      until: "const i = document.querySelector('.pdf-page[data-page=\"2\"] img'); return i.complete && i.naturalWidth >= 500")
    try await saveScreenshot(driver, "pdf-4-redo.png")
  }
}
