// The one driver of the fuzz targets: each target's `<module>_main` (the entry point SwiftPM
// links an executable with) hands over to libFuzzer here with its `LLVMFuzzerTestOneInput`.
public import Foundation

/// A folder of this fuzzing process's own for targets that read their input from files
/// (`quire-fuzz-NAME-PID` in the temporary folder).
public func fuzzScratchFolder(_ name: String) -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent("quire-fuzz-\(name)-\(getpid())", isDirectory: true)
  try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// Runs libFuzzer's driver over `argc`/`argv` with `test` as the input callback; returns
/// libFuzzer's exit status.
public func runLibFuzzer(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ test: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt {
  var argc = argc
  var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
  return LLVMFuzzerRunDriver(&argc, &argv, test)
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
  _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
  _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt
