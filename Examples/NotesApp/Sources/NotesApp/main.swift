// Apple's document frameworks as an app uses them, compiled as a package of its own against
// Quire's QuireDocuments and QuireCoordination products: an UndoManager subclass, a UIDocument
// and an NSDocument subclass overriding what Apple's documentation shows, the `async -> Bool`
// forms, a file presenter, a coordinated write and a FileWrapper package. Each step prints
// "ok" or "FAIL"; the program exits 1 when any step failed.
import Foundation
import QuireCoordination
import QuireDocuments

var failures: [String] = []

func check(_ condition: Bool, _ what: String) {
  print((condition ? "ok   " : "FAIL ") + what)
  if !condition { failures.append(what) }
}

/// Waits up to ten seconds for `condition`, as an app's run loop would let events arrive.
func waitUntil(_ condition: () -> Bool) async -> Bool {
  for _ in 0..<1000 {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("NotesApp-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

// 1. A UIDocument subclass: create, edit with undo, save, reopen.
let noteURL = folder.appendingPathComponent("note.txt")
let note = NoteDocument(fileURL: noteURL)
note.text = "Hello"
let created = await note.save(to: noteURL, for: .forCreating)
check(created, "a new note is saved for creating (await save(to:for:) -> Bool)")
note.setText("Hello, Linux")
check(note.hasUnsavedChanges, "an edit leaves unsaved changes")
note.undoManager.undo()
check(note.text == "Hello", "undo puts the text back")
check((note.undoManager as? LoggingUndoManager)?.undoneActionNames == ["Typing"], "the UndoManager subclass's undo() ran")
note.undoManager.redo()
check(note.text == "Hello, Linux", "redo makes the edit again")
let closed = await note.close()
check(closed, "closing saves the note (await close() -> Bool)")

let reopened = NoteDocument(fileURL: noteURL)
let opened = await reopened.open()
check(opened, "the note opens again (await open() -> Bool)")
check(reopened.text == "Hello, Linux", "the reopened note has the saved text")
check(reopened.fileModificationDate != nil, "the file's modification date is known")
check(reopened.undoManager.undoMenuTitle(forUndoActionName: "Typing") == "Undo \u{201C}Typing\u{201D}", "the subclass's menu title is used")

// 2. Coordination: a presenter hears a coordinated write by someone else; the open document reloads.
let watcher = Watcher(url: noteURL)
NSFileCoordinator.addFilePresenter(watcher)
let coordinator = NSFileCoordinator(filePresenter: nil)
var coordinationError: NSError?
var wrote = false
coordinator.coordinate(writingItemAt: noteURL, options: .forReplacing, error: &coordinationError) { url in
  wrote = (try? Data("Changed elsewhere".utf8).write(to: url, options: .atomic)) != nil
}
check(coordinationError == nil && wrote, "a coordinated write runs its accessor")
check(await waitUntil { watcher.changeCount > 0 }, "the presenter hears the change")
check(await waitUntil { reopened.text == "Changed elsewhere" }, "the open note reloads the change")
check(reopened.changeNotices > 0, "the document's presentedItemDidChange override ran")
NSFileCoordinator.removeFilePresenter(watcher)
_ = await reopened.close()

// 3. A failed open answers false and reaches handleError.
let missing = NoteDocument(fileURL: folder.appendingPathComponent("missing.txt"))
let openedMissing = await missing.open()
check(!openedMissing && missing.handledErrors.count == 1, "a missing file opens as false, through handleError")

// 4. An NSDocument subclass: read at init, autosaves in place, saved with AppKit's spelling.
let plainURL = folder.appendingPathComponent("plain.txt")
try Data("abc".utf8).write(to: plainURL)
let plain = try PlainTextFile(contentsOf: plainURL, ofType: "public.plain-text")
check(plain.contents == Data("abc".utf8), "init(contentsOf:ofType:) reads through read(from:ofType:)")
check(plain.autosavesInPlace, "the class's autosavesInPlace override applies")
plain.contents = Data("abcd".utf8)
plain.updateChangeCount(.changeDone)
check(plain.isDocumentEdited, "updateChangeCount(.changeDone) marks it edited")
try await plain.save(to: plainURL, ofType: "public.plain-text", for: .saveOperation)
check(try Data(contentsOf: plainURL) == Data("abcd".utf8), "save(to:ofType:for:) writes data(ofType:)")
check(!plain.isDocumentEdited, "a save clears the edited state")

// 5. A FileWrapper package, written and read back.
let bundleURL = folder.appendingPathComponent("Trip.textbundle")
let package = FileWrapper(directoryWithFileWrappers: [:])
package.addRegularFile(withContents: Data("# Trip".utf8), preferredFilename: "text.md")
let info = FileWrapper(regularFileWithContents: Data("{\"version\": 2}".utf8))
info.preferredFilename = "info.json"
package.addFileWrapper(info)
try package.write(to: bundleURL, options: .atomic, originalContentsURL: nil)
let readBack = try FileWrapper(url: bundleURL, options: .immediate)
check(readBack.isDirectory, "the package is a folder")
check(readBack.fileWrappers?["text.md"]?.regularFileContents == Data("# Trip".utf8), "its text reads back")
check(readBack.fileWrappers?.keys.sorted() == ["info.json", "text.md"], "it holds what was added")

try? FileManager.default.removeItem(at: folder)
print(failures.isEmpty ? "NotesApp: all checks passed" : "NotesApp: \(failures.count) failed")
exit(failures.isEmpty ? 0 : 1)
