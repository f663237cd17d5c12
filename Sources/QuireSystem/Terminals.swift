#if canImport(Glibc)
  import Glibc
#endif

extension SystemCalls {
  /// The rows and columns of the terminal on descriptor `fd` (`ioctl(2)` with `TIOCGWINSZ`),
  /// or `nil` when `fd` is not a terminal (a pipe, a file) or the call fails.
  package static func windowSize(of fd: Int32) -> (rows: Int, columns: Int)? {
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 else { return nil }
    return (Int(size.ws_row), Int(size.ws_col))
  }
}
