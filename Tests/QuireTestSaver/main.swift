// quire-test-saver PATH START [VERSIONS-FOLDER]
//   Saves the plain-text document at PATH in a loop, each time with the next version of a
//   known content (see `content(version:)`), until it is killed; with VERSIONS-FOLDER, each
//   save keeps the version it replaces in a version store there. The crash-safety test
//   SIGKILLs it at random moments and checks that the file always holds one complete version
//   (and that every kept version is complete).
//
// quire-test-saver --autosave PATH RECOVERY-FOLDER TEXT
//   Opens PATH, replaces its text with TEXT, lets the idle autosave write the recovery file,
//   prints "autosaved" and waits to be killed (the recovery test's crash).
//
// quire-test-saver --textbundle PATH START, quire-test-saver --pdf PATH: see below.
import Foundation
import QuireDocuments
import QuirePDF

/// Version `n`: a header naming it, 2,000 lines that depend on it, and a footer.
func content(version n: Int) -> String {
  var text = "version \(n)\n"
  for line in 0..<2000 { text += "line \(line) of version \(n): the quick brown fox\n" }
  return text + "end of version \(n)\n"
}

let arguments = CommandLine.arguments
if arguments.count == 5, arguments[1] == "--autosave" {
  let document = PlainTextDocument(fileURL: URL(fileURLWithPath: arguments[2]))
  document.recoveryStore = RecoveryStore(folder: URL(fileURLWithPath: arguments[3]))
  document.autosavePolicy = .init(idleDelay: .milliseconds(20), maximumInterval: .seconds(10))
  do {
    try await document.open()
    try document.replaceText(with: arguments[4])
    while document.hasUnautosavedChanges { try await Task.sleep(for: .milliseconds(5)) }
    FileHandle.standardOutput.write(Data("autosaved\n".utf8))
    while true { try await Task.sleep(for: .seconds(1)) }
  } catch {
    FileHandle.standardError.write(Data("quire-test-saver: \(error)\n".utf8))
    exit(1)
  }
}
// quire-test-saver --textbundle PATH START
//   As the first form, for a TextBundle (a folder: text.md and info.json) saved as a package.
//
// quire-test-saver --pdf PATH
//   Opens the PDF at PATH and, in a loop, moves its first page to the end and saves (through
//   libqpdf and the atomic rename), until it is killed: every complete version holds the same
//   pages in a rotated order.
if arguments.count == 4, arguments[1] == "--textbundle", let start = Int(arguments[3]) {
  let bundle = TextBundleDocument(fileURL: URL(fileURLWithPath: arguments[2]))
  bundle.autosavePolicy = nil
  bundle.recoveryStore = nil
  do {
    try await bundle.open()
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    var version = start
    while true {
      version += 1
      try bundle.replaceText(with: content(version: version))
      try await bundle.save()
    }
  } catch {
    FileHandle.standardError.write(Data("quire-test-saver: \(error)\n".utf8))
    exit(1)
  }
}
if arguments.count == 3, arguments[1] == "--pdf" {
  do {
    let pdf = try PDFDocument(contentsOf: URL(fileURLWithPath: arguments[2]))
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
      try pdf.movePage(at: 0, to: pdf.pageCount - 1)
      try pdf.save()
    }
  } catch {
    FileHandle.standardError.write(Data("quire-test-saver: \(error)\n".utf8))
    exit(1)
  }
}
guard arguments.count == 3 || arguments.count == 4, let start = Int(arguments[2]) else {
  FileHandle.standardError.write(Data("usage: quire-test-saver PATH START [VERSIONS-FOLDER]\n".utf8))
  exit(2)
}
let document = PlainTextDocument(fileURL: URL(fileURLWithPath: arguments[1]))
document.autosavePolicy = nil
document.recoveryStore = nil
if arguments.count == 4 { document.versionStore = VersionStore(root: URL(fileURLWithPath: arguments[3])) }
do {
  try await document.open()
  FileHandle.standardOutput.write(Data("ready\n".utf8))
  var version = start
  while true {
    version += 1
    try document.replaceText(with: content(version: version))
    try await document.save()
  }
} catch {
  FileHandle.standardError.write(Data("quire-test-saver: \(error)\n".utf8))
  exit(1)
}
