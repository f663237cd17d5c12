import Foundation
import Quire
import QuireSystem
import Synchronization
import SystemPackage

/// The background process that holds a desktop selection for `quire copy`, as `xclip` and
/// `wl-copy` do: an X11 selection lives only while its owner runs, and `quire copy` returns
/// at once.
///
/// `quire copy ARGS` starts `quire copy ARGS --serve-selection` in a session of its own, with
/// standard input, output and error away from the terminal, and waits for its first line on a
/// pipe: `ready` once it holds the selection, or `error: …`. The server then serves until
/// another program takes the selection.
enum SelectionServer {
  /// How long `quire copy` waits for the server to hold the selection.
  static let startTimeout: TimeInterval = 30

  /// Starts the server with this process's arguments and returns once it holds the selection.
  /// `--text TEXT` is not among them: the text goes to the server through a pipe on its
  /// standard input (`--text-on-input`), never in its arguments, which any user can read in
  /// `ps` or `/proc` for as long as it holds the clipboard.
  /// - Throws: ``QuireError`` with the server's own message when it could not take it.
  static func start(text: String?) throws {
    guard QuireCommand.ownsProcess else {
      throw QuireError(.invalidArgument, "'quire copy' serves the desktop clipboard from a process of its own; use Pasteboard from the library instead.")
    }
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let report = Pipe()
    let input = text == nil ? nil : Pipe()
    let arguments = text == nil ? Array(CommandLine.arguments.dropFirst()) : withoutText(Array(CommandLine.arguments.dropFirst())) + ["--text-on-input"]
    let started = SystemCalls.spawn(
      executable.path, arguments: arguments + ["--serve-selection"],
      standardInput: input.map { .descriptor($0.fileHandleForReading.fileDescriptor) } ?? .discarded,
      standardOutput: .descriptor(report.fileHandleForWriting.fileDescriptor), standardError: .discarded)
    try? report.fileHandleForWriting.close()
    if let input, let text {
      try? input.fileHandleForReading.close()
      // The server reads it to the end before it does anything else; a server that died
      // closes the pipe (EPIPE, not SIGPIPE), and its report says why.
      signal(SIGPIPE, SIG_IGN)
      try? input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
      try? input.fileHandleForWriting.close()
    }
    let server: SpawnedProcess
    switch started {
    case .success(let spawned): server = spawned
    case .failure(let failure):
      throw QuireError(.systemCallFailed, "Cannot start the background 'quire' that serves the clipboard (\(failure)). Use --foreground.", cause: failure)
    }
    // The first line, read on a thread of its own so that a silent server cannot hang us.
    let line = Mutex<String?>(nil)
    let arrived = DispatchSemaphore(value: 0)
    let reader = report.fileHandleForReading
    DedicatedThread.start(named: "quire copy: first line") {
      var seen = Data()
      while !seen.contains(0x0A) {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        seen.append(chunk)
      }
      line.withLock { $0 = String(decoding: seen.prefix { $0 != 0x0A }, as: UTF8.self) }
      arrived.signal()
    }
    guard arrived.wait(timeout: .now() + startTimeout) == .success, let first = line.withLock({ $0 }) else {
      server.signal(SIGTERM)
      throw QuireError(
        .timedOut, "The background 'quire' that serves the clipboard did not start within \(Int(startTimeout)) s. Try again, or use --foreground.")
    }
    if first == "ready" { return }
    let message = first.hasPrefix("error: ") ? String(first.dropFirst(7)) : "it exited before holding the clipboard"
    throw QuireError(.libraryFailure, "Cannot serve the clipboard: \(message)")
  }

  /// `arguments` without `--text TEXT` (or `--text=TEXT`).
  static func withoutText(_ arguments: [String]) -> [String] {
    var kept: [String] = []
    var skipNext = false
    for argument in arguments {
      if skipNext {
        skipNext = false
        continue
      }
      if argument == "--text" {
        skipNext = true
        continue
      }
      if argument.hasPrefix("--text=") { continue }
      kept.append(argument)
    }
    return kept
  }

  /// In the server: a session of its own, so that closing the terminal does not end it.
  static func detach() {
    // Started in the process group of `quire copy` (not its leader), so setsid succeeds.
    _ = setsid()
    // The mask was emptied by the system layer's spawn; the call keeps a server started any
    // other way (a test's own runner) reachable by SIGTERM.
    var none = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, nil)
    signal(SIGHUP, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
  }

  /// In the server: tells `quire copy` how it went, then lets go of the pipe.
  static func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
    SystemCalls.discard(.standardOutput)
  }

  /// SIGTERM and SIGINT hand the items over (to a clipboard manager, else to Quire's store)
  /// before the process ends.
  static func handOverWhenSignalled() {
    for number in [SIGTERM, SIGINT] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        Task {
          try? await Pasteboard.materializePromises()
          exit(0)
        }
      }
      source.resume()
      sources.append(source)
    }
  }
  /// Kept alive for the process; written only by handOverWhenSignalled, once, before any signal.
  nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
}
