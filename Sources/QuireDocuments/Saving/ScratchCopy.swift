import Foundation
import QuireSystem
import Synchronization
import SystemPackage

/// A large file's bytes held the way GNU ed holds its buffer: copied (inside the kernel) into
/// an unlinked temporary file of this process and mapped read-only, so that the text's
/// unchanged bytes are the page cache's, not the process's own memory.
///
/// The pages a pass over the text brings in are let go again (``ScratchMapping/noteRead(_:)``
/// every 8 MiB, `madvise(MADV_DONTNEED)`): a shared mapping of a file reads them back from
/// the cache when they are next needed, so this only ever drops what can be read again. The
/// copy is private: another program truncating the user's file cannot pull bytes out from
/// under the mapping (which would be `SIGBUS`), as mapping the user's file itself could.
enum ScratchCopy {
  /// Files at least this large are read into a scratch copy; smaller ones into memory.
  static let threshold = 4 << 20

  /// The rest of `fd` (a regular file of about `size` bytes) as `Data` over a mapped
  /// scratch copy, with its hash, or `nil` when one cannot be made (no room in the temporary folder, no
  /// `O_TMPFILE`): the caller then reads the file into memory.
  static func read(_ fd: FileDescriptor, size: Int) -> (data: Data, hash: ContentHash)? {
    guard size >= threshold, let scratch = makeScratchFile() else { return nil }
    defer { SystemCalls.release(scratch) }
    guard case .success(let copied) = SystemCalls.copyRest(of: fd, to: scratch), copied > 0,
      let (data, mapping) = map(scratch, count: copied)
    else { return nil }
    let base = UnsafeRawPointer(bitPattern: mapping.base)!
    // The hash, a window at a time, each window's pages let go after it.
    var hasher = ContentHasher()
    var start = 0
    while start < copied {
      let count = min(ScratchMapping.readLimit, copied - start)
      hasher.update(UnsafeRawBufferPointer(start: base + start, count: count))
      mapping.noteRead(count)
      start += count
    }
    return (data, hasher.finalize())
  }

  /// An unnamed file in the temporary folder (`TMPDIR`, else `/tmp`), or nil.
  private static func makeScratchFile() -> FileDescriptor? {
    let folder = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    return try? SystemCalls.makeUnnamedFile(in: folder).get()
  }

  /// `count` bytes of the file `fd` mapped read-only, as `Data` that unmaps them when it goes.
  private static func map(_ fd: FileDescriptor, count: Int) -> (Data, ScratchMapping)? {
    guard case .success(let base) = SystemCalls.mapReadOnly(fd, count: count) else { return nil }
    let mapping = ScratchMapping(base: Int(bitPattern: base), length: count)
    ScratchMapping.live.withLock { $0[mapping.base] = mapping }
    let data = Data(
      bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: count,
      deallocator: .custom { pointer, count in
        ScratchMapping.live.withLock { live in
          live[Int(bitPattern: pointer)]?.unmap()
          live[Int(bitPattern: pointer)] = nil
        }
      })
    return (data, mapping)
  }

  /// New bytes of a large text (what a batched edit made) written to a scratch file of their
  /// own and mapped back, so that they too are page cache rather than the process's memory;
  /// `nil` when that cannot be done (the caller keeps them in memory).
  static func spill(_ bytes: UnsafeRawBufferPointer) -> Data? {
    guard !bytes.isEmpty, let scratch = makeScratchFile() else { return nil }
    defer { SystemCalls.release(scratch) }
    guard case .success = SystemCalls.writeAll(scratch, bytes) else { return nil }
    return map(scratch, count: bytes.count)?.0
  }
}

/// A mapped scratch copy (see ``ScratchCopy``): lets go of the pages read through it.
final class ScratchMapping: Sendable {
  /// The mappings alive, by their first byte's address.
  static let live = Mutex<[Int: ScratchMapping]>([:])

  let base: Int
  let length: Int
  private let mapped = Mutex(true)
  /// Bytes read through the mapping after which its pages are let go.
  static let readLimit = 8 << 20

  init(base: Int, length: Int) {
    self.base = base
    self.length = length
  }

  /// The live mapping that starts at `address`, if any.
  static func mapping(at address: UnsafeRawPointer?) -> ScratchMapping? {
    guard let address else { return nil }
    return live.withLock { $0[Int(bitPattern: address)] }
  }

  /// Counts `count` bytes read through scratch mappings, and lets the pages of all of them
  /// go every ``readLimit`` bytes.
  func noteRead(_ count: Int) {
    let due = Self.read.withLock { read in
      read += count
      guard read >= Self.readLimit else { return false }
      read = 0
      return true
    }
    if due { Self.live.withLock { live in for mapping in live.values { mapping.release() } } }
  }
  private static let read = Mutex(0)

  /// Lets go of every page of the mapping now (they are read back from the cache when needed).
  func release() {
    mapped.withLock { mapped in
      guard mapped else { return }
      SystemCalls.dropPages(UnsafeRawPointer(bitPattern: base)!, count: length)
    }
  }

  /// Unmaps it (the last `Data` over it is gone).
  fileprivate func unmap() {
    mapped.withLock { mapped in
      guard mapped else { return }
      mapped = false
      SystemCalls.unmap(UnsafeRawPointer(bitPattern: base)!, count: length)
    }
  }
}
