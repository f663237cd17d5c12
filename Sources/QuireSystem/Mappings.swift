package import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Unnamed scratch files and read-only mappings: how a large text's bytes are held in the page
/// cache rather than in the process's memory (QuireDocuments' scratch copy, as GNU ed holds its
/// buffer).
extension SystemCalls {
  /// An unnamed file in `folder` (`open(2)` with `O_TMPFILE`, owner-only): it has no name, so
  /// nobody else can open it, and it is gone when its last descriptor closes.
  package static func makeUnnamedFile(in folder: String) -> Result<FileDescriptor, SyscallFailure> {
    // `__O_TMPFILE | O_DIRECTORY`: Swift's Glibc does not export the O_TMPFILE macro.
    let unnamedFile: Int32 = 0o20_000_000 | O_DIRECTORY
    return PathText.withCString(folder) { path in
      retrying("open", .create, path: folder) { Glibc.open(path, unnamedFile | O_RDWR | O_CLOEXEC, 0o600) }
    }.map(FileDescriptor.init(rawValue:))
  }

  /// Copies the rest of `source` (from where it stands) to the end of `destination` inside
  /// the kernel (`sendfile(2)`); how many bytes it copied.
  package static func copyRest(of source: FileDescriptor, to destination: FileDescriptor) -> Result<Int, SyscallFailure> {
    var copied = 0
    while true {
      switch retrying("sendfile", .write, in: destination, { Glibc.sendfile(destination.rawValue, source.rawValue, nil, 1 << 30) }) {
      case .failure(let failure): return .failure(failure)
      case .success(0): return .success(copied)
      case .success(let count): copied += count
      }
    }
  }

  /// The first `count` bytes of `fd` mapped read-only and shared (`mmap(2)`): pages are read
  /// from the page cache as they are touched. Give them back with ``unmap(_:count:)``.
  package static func mapReadOnly(_ fd: FileDescriptor, count: Int) -> Result<UnsafeRawPointer, SyscallFailure> {
    if let injected = FaultPlan.failure(.read, in: fd) { return .failure(SyscallFailure(call: "mmap", errno: injected)) }
    guard let base = Glibc.mmap(nil, count, PROT_READ, MAP_SHARED, fd.rawValue, 0), base != MAP_FAILED else {
      return .failure(SyscallFailure(call: "mmap", errno: Errno(rawValue: Glibc.errno)))
    }
    return .success(UnsafeRawPointer(base))
  }

  /// Lets go of the pages of a mapping (`madvise(MADV_DONTNEED)`); a shared file mapping reads
  /// them back from the page cache when they are next touched, so nothing is lost.
  package static func dropPages(_ base: UnsafeRawPointer, count: Int) {
    _ = Glibc.madvise(UnsafeMutableRawPointer(mutating: base), count, MADV_DONTNEED)
  }

  /// Ends a mapping made by ``mapReadOnly(_:count:)`` (`munmap(2)`).
  package static func unmap(_ base: UnsafeRawPointer, count: Int) {
    _ = Glibc.munmap(UnsafeMutableRawPointer(mutating: base), count)
  }
}
