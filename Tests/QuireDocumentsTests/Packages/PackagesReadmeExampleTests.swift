import Foundation
import QuireDocuments
import QuireFormats
import QuirePDF
import QuireTestSupport
import QuireTypes
import Testing

/// The README's "Packages, PDF documents and versions" document example, run against a
/// temporary folder.
@Suite("README packages example")
@MainActor
final class PackagesReadmeExampleTests: MainActorFolderSuite {
  @Test func theExampleWorks() async throws {
    let bundleURL = folder.file("Trip.textbundle")
    try TextBundle(text: "# Trip\n").write(to: bundleURL)
    let pdfURL = try writePDF(to: folder.file("report.pdf"), pages: (1...5).map { "Page \($0)" })
    let pngData = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])

    let controller = DocumentController(stateFolder: folder.file("state/quire"))
    controller.autosavePolicy = nil
    controller.registerPDFDocuments()
    let trip = try #require(try await controller.openDocument(at: bundleURL) as? TextBundleDocument)
    try trip.insertLines(["Day two."], at: trip.lineCount)
    try trip.addAsset(pngData, named: "photo.png")
    #expect(trip.assetNames == ["photo.png"])
    #expect(trip.text.contains("![photo](assets/photo.png)"))
    try await trip.save()

    let report = try #require(try await controller.openDocument(at: pdfURL) as? PDFFileDocument)
    try report.removePages(in: 2..<4)
    try report.rotatePages(in: 0..<1, by: 90)
    #expect(report.undoManager.undoActionName == "Rotate Page 1 by 90°")
    report.undoManager.undo()
    #expect(report.changeCount == 1)
    try await report.save()
    #expect(try PDFDocument(contentsOf: pdfURL).pageCount == 3)

    let versions = try trip.versions()
    #expect(versions.count == 1)
    let old = try #require(try trip.openVersion(versions[0]) as? TextBundleDocument)
    #expect(old.text == "# Trip\n")
    let saved = trip.text
    try trip.restoreVersion(versions[0])
    #expect(trip.text == "# Trip\n")
    #expect(trip.assetNames.isEmpty)
    trip.undoManager.undo()
    #expect(trip.text == saved)
    #expect(trip.assetNames == ["photo.png"])
  }
}
