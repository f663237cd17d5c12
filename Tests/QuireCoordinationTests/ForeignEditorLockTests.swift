import Foundation
import QuireCoordination
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Other editors' lock files")
final class ForeignEditorLockTests: CoordinationSuite {
  /// This machine's name as editors record it (`gethostname(2)`).
  var host: String {
    var buffer = [CChar](repeating: 0, count: 256)
    _ = gethostname(&buffer, 255)
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// A Vim swap file's first block: "b0", version, page size, mtime, inode, pid, user, host.
  func vimSwap(pid: Int32) -> Data {
    var block = [UInt8](repeating: 0, count: 1024)
    block[0] = UInt8(ascii: "b")
    block[1] = UInt8(ascii: "0")
    for (index, byte) in "VIM 9.0".utf8.enumerated() { block[2 + index] = byte }
    withUnsafeBytes(of: UInt32(bitPattern: pid).littleEndian) { for (i, b) in $0.enumerated() { block[24 + i] = b } }
    for (index, byte) in "alice".utf8.enumerated() { block[28 + index] = byte }
    for (index, byte) in host.utf8.prefix(39).enumerated() { block[68 + index] = byte }
    return Data(block)
  }

  @Test func emacsVimAndLibreOfficeLocksAreRecognised() throws {
    let file = try folder.write("x\n", to: "notes.md")
    try FileManager.default.createSymbolicLink(atPath: folder.file(".#notes.md").path, withDestinationPath: "alice@\(host).\(getpid()):1700000000")
    try vimSwap(pid: getpid()).write(to: folder.file(".notes.md.swp"))
    try Data("Alice,\(host),alice,22.11.2026 03:00,file:///home/alice/.config/libreoffice/4;".utf8).write(to: folder.file(".~lock.notes.md#"))
    let locks = ForeignEditorLock.locks(for: file)
    #expect(locks.map(\.editor) == [.emacs, .vim, .libreOffice])
    #expect(locks[0].processID == getpid() && locks[0].owner == "alice@\(host)" && !locks[0].isStale)
    #expect(locks[1].processID == getpid() && locks[1].owner == "alice@\(host)" && !locks[1].isStale)
    #expect(locks[2].owner == "alice@\(host)")
  }

  @Test func aLiveForeignLockRefusesACoordinatedWriteByName() throws {
    let file = try folder.write("x\n", to: "held.md")
    try vimSwap(pid: getpid()).write(to: folder.file(".held.md.swp"))
    expectQuireError(.inUse, reasonContains: "Vim", "process \(getpid())") {
      try FileCoordinator(location: location).coordinate(writingItemAt: file) { _ in }
    }
    // Reading is fine, and a writer may choose to go ahead.
    #expect(try FileCoordinator(location: location).coordinate(readingItemAt: file) { _ in true })
    #expect(try FileCoordinator(location: location).coordinate(writingItemAt: file, options: .ignoringForeignEditorLocks) { _ in true })
  }

  @Test func aStaleEmacsLockFromADeadProcessDoesNotBlock() throws {
    let file = try folder.write("x\n", to: "old.md")
    // pid_max is at most 2^22 on Linux, so this process cannot exist.
    try FileManager.default.createSymbolicLink(atPath: folder.file(".#old.md").path, withDestinationPath: "alice@\(host).4194305:1700000000")
    let locks = ForeignEditorLock.locks(for: file)
    #expect(locks.count == 1 && locks[0].isStale)
    #expect(try FileCoordinator(location: location).coordinate(writingItemAt: file) { _ in true })
  }

  @Test(arguments: ["", "b0", String(repeating: "\u{FF}", count: 3000)])
  func garbledLockFilesDoNotCrash(_ contents: String) throws {
    let file = try folder.write("x\n", to: "odd.md")
    try Data(contents.utf8).write(to: folder.file(".odd.md.swp"))
    try Data(contents.utf8).write(to: folder.file(".~lock.odd.md#"))
    let locks = ForeignEditorLock.locks(for: file)
    #expect(locks.count == 2)
  }
}
