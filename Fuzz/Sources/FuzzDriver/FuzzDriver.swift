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

/// Runs libFuzzer's driver on a thread of its own while the main thread serves the main actor,
/// for targets whose code belongs to the main actor (the ed engine and its documents); the
/// process exits with libFuzzer's status. The target's callback runs its work there with
/// ``waitOnMainActor(_:)``.
public func runLibFuzzerServingTheMainActor(
  _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ test: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt {
  // The arguments live as long as the process; only the driver's thread reads them.
  nonisolated(unsafe) let argv = argv
  let thread = Thread { exit(runLibFuzzer(argc, argv, test)) }
  thread.stackSize = 64 << 20
  thread.start()
  dispatchMain()
}

/// Runs `body` on the main actor and waits for it on the calling thread: a fuzz callback's,
/// under ``runLibFuzzerServingTheMainActor(_:_:_:)`` (never the main thread itself).
public func waitOnMainActor(_ body: @escaping @MainActor () async -> Void) {
  let done = DispatchSemaphore(value: 0)
  Task { @MainActor in
    await body()
    done.signal()
  }
  done.wait()
}
