import Foundation
import QuireSystem
import QuireTestSupport
import Testing

@Suite("SystemCalls.spawn: the one way children start, and how they are waited for")
final class ProcessesTests: FolderSuite {
  /// Starts `/bin/sh -c script` with its standard output into `output` (a file of the folder).
  private func shell(_ script: String, output: String = "out", ownProcessGroup: Bool = false) throws -> SpawnedProcess {
    let handle = try FileHandle(forWritingTo: try folder.write("", to: output))
    defer { try? handle.close() }
    return try SystemCalls.spawn(
      "/bin/sh", arguments: ["-c", script], standardInput: .discarded, standardOutput: .descriptor(handle.fileDescriptor),
      ownProcessGroup: ownProcessGroup
    ).get()
  }

  private func read(_ name: String) -> String {
    ((try? String(contentsOf: folder.file(name), encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The process group of `pid` (`/proc/PID/stat`, the fifth field).
  private static func processGroup(of pid: pid_t) -> pid_t? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let end = stat.lastIndex(of: ")") else { return nil }
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    return fields.count > 2 ? pid_t(fields[2]) : nil
  }

  /// The hang this replaced: Foundation's `Process` learns of an exit from a socket the child
  /// inherits, so a grandchild holding it (here `sleep`, a shell's background job) left the
  /// shell unreaped and `waitUntilExit()` blocked for as long as the grandchild lived.
  @Test func aWaitReturnsWhenTheChildEndsWhileAGrandchildLivesOn() throws {
    let child = try shell("sleep 1000 & echo $!; exit 3")
    #expect(child.wait() == .exited(3))
    let grandchild = try #require(pid_t(read("out")), "the shell printed its background job's pid")
    defer { kill(grandchild, SIGKILL) }
    #expect(kill(grandchild, 0) == 0, "the grandchild still runs: the wait did not wait for it")
  }

  @Test func everyWaiterAndPollerLearnsTheSameEnd() async throws {
    let child = try shell("exec sleep 1000", output: "unused")
    #expect(child.poll() == nil && child.isRunning)
    child.signal(SIGTERM)
    let ends = await withTaskGroup(of: Termination.self) { group in
      for _ in 0..<4 {
        group.addTask {
          await withCheckedContinuation { continuation in Thread { continuation.resume(returning: child.wait()) }.start() }
        }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(ends == Array(repeating: .signalled(SIGTERM), count: 4))
    #expect(child.poll() == .signalled(SIGTERM) && !child.isRunning)
    child.signal(SIGKILL)  // reaped: nothing is sent to a process that might have taken its id
  }

  @Test func aChildStaysInOurProcessGroupUnlessAskedAndStartsWithNoSignalBlocked() async throws {
    let inGroup = try shell("grep '^SigBlk' /proc/self/status; exec sleep 1000")
    defer { inGroup.signal(SIGKILL) }
    let own = try shell("exec sleep 1000", output: "own", ownProcessGroup: true)
    defer { own.signal(SIGKILL) }
    #expect(await eventually { Self.processGroup(of: inGroup.pid) == getpgrp() })
    #expect(Self.processGroup(of: inGroup.pid) == getpgrp(), "as system(3) and GNU ed start it, so the terminal's Ctrl-C reaches it")
    #expect(await eventually { Self.processGroup(of: own.pid) == own.pid })
    #expect(await eventually { read("out").hasPrefix("SigBlk") })
    #expect(read("out").split(separator: "\t").last == "0000000000000000")
  }

  @Test func aChildInheritsNoDescriptorButItsThree() throws {
    // A pipe opened without close-on-exec, as Foundation's `Pipe` and other threads' sockets are.
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    defer { for end in ends { close(end) } }
    let child = try shell("ls /proc/$$/fd")
    #expect(child.wait() == .exited(0))
    let listed = Set(read("out").split(separator: "\n").compactMap { Int32($0) })
    #expect(listed.isDisjoint(with: ends), "listed \(listed.sorted()), the pipe is \(ends)")
    #expect(listed.isSuperset(of: [0, 1, 2]))
  }

  @Test func aMissingProgramOrFolderFailsToStart() {
    #expect(throws: SyscallFailure.self) { try SystemCalls.spawn(folder.file("missing").path, arguments: []).get() }
    #expect(throws: SyscallFailure.self) { try SystemCalls.spawn("/bin/true", arguments: [], folder: folder.file("missing").path).get() }
    #expect(
      (try? SystemCalls.spawn("/bin/sh", arguments: ["-c", "test \"$PWD\" = \"$0\"", folder.url.path], folder: folder.url.path).get())?.wait() == .exited(0))
  }
}
