// A child process for the QuireDocuments tests: a save to kill halfway, or a hostile PDF to
// open under a time limit, without risking the test process.
import Foundation
import QuireDocuments
import QuirePDF
import QuireSystem

/// The plan that holds this process at `step` (e.g. `write`) number `occurrence` of the calls
/// under `folder`, once the first save is done: it prints `holding STEP #N` and waits there to
/// be killed, so a test kills it inside a save, at a step it chose.
func holdPlan(_ arguments: ArraySlice<String>, under folder: URL) -> FaultPlan? {
  guard arguments.count == 2, let step = SystemStep(rawValue: arguments[arguments.startIndex]),
    let occurrence = Int(arguments[arguments.startIndex + 1])
  else { return nil }
  let fault = FaultPlan.Fault(holding: step, under: folder.path, occurrence: occurrence) {
    FileHandle.standardOutput.write(Data("holding \(step) #\(occurrence)\n".utf8))
    while true { pause() }
  }
  return FaultPlan([fault], scope: folder.path)
}

let arguments = CommandLine.arguments.dropFirst()

/// Generation `generation` of the package used by the kill test: every file carries the
/// generation number, so a mixed package is detectable.
func package(generation: Int, files: Int, size: Int) -> FileWrapper {
  let root = FileWrapper(directoryWithFileWrappers: [:])
  let assets = FileWrapper(directoryWithFileWrappers: [:])
  assets.preferredFilename = "assets"
  for index in 0..<files {
    let byte = UInt8(truncatingIfNeeded: generation)
    assets.addRegularFile(withContents: Data(repeating: byte, count: size), preferredFilename: "file-\(index).bin")
  }
  root.addFileWrapper(assets)
  root.addRegularFile(withContents: Data("generation \(generation)\n".utf8), preferredFilename: "text.md")
  return root
}

switch arguments.first {
case "write-generations":
  // write-generations DEST FILES SIZE [STEP N]: writes generations 1, 2, 1, 2, … until
  // killed; with STEP N, holds at that step of the saves after the first (see holdPlan).
  let values = Array(arguments.dropFirst())
  guard values.count == 3 || values.count == 5, let files = Int(values[1]), let size = Int(values[2]) else { exit(2) }
  let destination = URL(fileURLWithPath: values[0])
  let plan = holdPlan(values.dropFirst(3), under: destination.deletingLastPathComponent())
  var generation = 1
  while true {
    do {
      let save = { try package(generation: generation, files: files, size: size).write(to: destination, options: .atomic, originalContentsURL: destination) }
      if generation == 2, let plan { try plan.run(save) } else { try save() }
    } catch {
      FileHandle.standardError.write(Data("\(error)\n".utf8))
      exit(1)
    }
    FileHandle.standardOutput.write(Data("wrote \(generation)\n".utf8))
    generation = generation == 1 ? 2 : 1
  }
case "save-bundle-document":
  // save-bundle-document DEST FILES SIZE [STEP N]: opens the TextBundle DEST as a
  // TextBundleDocument and saves generations 1, 2, 1, 2, … of its text and assets through
  // Document.save() until killed; with STEP N, holds at that step of the saves of generation 2.
  let values = Array(arguments.dropFirst())
  guard values.count == 3 || values.count == 5, let files = Int(values[1]), let size = Int(values[2]) else { exit(2) }
  let destination = URL(fileURLWithPath: values[0])
  let plan = holdPlan(values.dropFirst(3), under: destination.deletingLastPathComponent())
  let document = TextBundleDocument(fileURL: destination)
  document.autosavePolicy = nil
  document.recoveryStore = nil
  do {
    try await document.open()
    var generation = 1
    while true {
      try document.replaceText(with: "generation \(generation)\n")
      for index in 0..<files {
        document.bundle.removeAsset(named: "file-\(index).bin")
        document.bundle.addAsset(Data(repeating: UInt8(generation), count: size), preferredFilename: "file-\(index).bin")
      }
      if generation == 2, let plan { try await plan.run { try await document.save() } } else { try await document.save() }
      FileHandle.standardOutput.write(Data("wrote \(generation)\n".utf8))
      generation = generation == 1 ? 2 : 1
    }
  } catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(1)
  }
case "probe-pdf":
  // probe-pdf FILE: opens it as a PDFDocument and reads everything but pixels (page 1's text
  // and its character geometry too).
  guard let path = arguments.dropFirst().first else { exit(2) }
  do {
    let document = try PDFDocument(contentsOf: URL(fileURLWithPath: path))
    print("pages \(document.pageCount)")
    let metadata = document.metadata
    print("title \(metadata.title ?? "-")")
    print("outline \(document.outline.count)")
    print("encrypted \(document.isEncrypted)")
    if document.pageCount > 0 {
      print("text \(try document.text(ofPage: 0).count)")
      print("rotation \(try document.rotation(ofPage: 0))")
    }
    // PDFKit's character geometry, as a client loops over a page: nothing may crash or hang.
    if let page = document.page(at: 0) {
      let count = page.numberOfCharacters
      let areas = (0..<min(count, 5_000)).filter { page.characterBounds(at: $0) != .zero }.count
      let selected = page.selection(for: page.bounds(for: .mediaBox))?.string?.count ?? 0
      print("characters \(count), \(areas) with areas, \(selected) selected, index \(page.characterIndex(at: CGPoint(x: 1, y: 1)))")
    }
    exit(0)
  } catch {
    print("error \(error)")
    exit(1)
  }
case "edit-pdf":
  // edit-pdf IN OUT: moves page 1 after page 2, turns page 1 a quarter, writes OUT (for corpus sweeps).
  let values = Array(arguments.dropFirst())
  guard values.count == 2 else { exit(2) }
  do {
    let document = try PDFDocument(contentsOf: URL(fileURLWithPath: values[0]))
    if document.pageCount > 1 { try document.movePage(at: 0, to: 1) }
    try document.rotatePage(at: 0, by: 90)
    try document.write(to: URL(fileURLWithPath: values[1]))
    print("pages \(document.pageCount)")
    exit(0)
  } catch {
    print("error \(error)")
    exit(1)
  }
case "open-document":
  // open-document FILE: opens FILE as a plain-text Document with nothing but the defaults (it
  // registers itself as the file's presenter and coordinates through $XDG_RUNTIME_DIR) and
  // takes commands on standard input: "edit TEXT" (unsaved), "save", "show". Prints
  // "opened", "didChange" for each presentedItemDidChange and "checked text T state S" once the
  // document has looked at the file, "state S" when the state changes, "saved" / "error E";
  // exits when standard input closes.
  guard let path = arguments.dropFirst().first else { exit(2) }
  await MainActor.run {
    let document = ReportingDocument(fileURL: URL(fileURLWithPath: path))
    document.autosavePolicy = nil
    document.recoveryStore = nil
    HelperState.document = document
  }
  await HelperState.run()
  exit(0)
default:
  FileHandle.standardError.write(
    Data("usage: quire-documents-test-helper write-generations DEST FILES SIZE | probe-pdf FILE | edit-pdf IN OUT | open-document FILE\n".utf8))
  exit(2)
}

/// Prints one line at once.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A plain-text document that reports what reaches it.
final class ReportingDocument: PlainTextDocument {
  override func presentedItemDidChange() {
    say("didChange")
    // The check super starts, awaited here so that its outcome can be reported.
    Task {
      _ = try? await checkForChangesOnDisk()
      say("checked text \(text.replacingOccurrences(of: "\n", with: "\\n")) state \(documentState)")
    }
  }
}

@MainActor
enum HelperState {
  static var document: ReportingDocument?

  static func run() async {
    guard let document else { return }
    document.addStateObserver { say("state \($0)") }
    do {
      try await document.open()
    } catch {
      say("error \(error)")
      return
    }
    say("opened")
    // Standard input is read on its own thread; each line is handled on the main actor.
    let lines = AsyncStream<String> { continuation in
      Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
      }
    }
    for await line in lines {
      do {
        if line.hasPrefix("edit ") {
          try document.replaceText(with: String(line.dropFirst(5)).replacingOccurrences(of: "\\n", with: "\n"))
          say("edited")
        } else if line == "save" {
          try await document.save()
          say("saved")
        } else if line == "show" {
          say("text \(document.text.replacingOccurrences(of: "\n", with: "\\n")) state \(document.documentState)")
        }
      } catch {
        say("error \(error)")
      }
    }
    try? await document.close(discardingChanges: true)
  }
}
