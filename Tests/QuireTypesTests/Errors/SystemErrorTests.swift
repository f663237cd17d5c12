import Foundation
import QuireSystem
import QuireTestSupport
import SystemPackage
import Testing

@testable import QuireCore
@testable import QuireTypes

/// The one errno-to-`QuireError` mapping: the same errno gives the same code in every module.
@Suite("System errors: one mapping")
struct SystemErrorTests {
  @Test func theCodeComesFromTheErrnoAlone() {
    #expect(QuireError.Code(.noSpace) == .diskFull)
    #expect(QuireError.Code(.diskQuotaExceeded) == .diskFull)
    #expect(QuireError.Code(.permissionDenied) == .permissionDenied)
    #expect(QuireError.Code(.readOnlyFileSystem) == .permissionDenied)
    #expect(QuireError.Code(.noSuchFileOrDirectory) == .fileMissing)
    #expect(QuireError.Code(.fileExists) == .fileExists)
    #expect(QuireError.Code(.ioError) == .systemCallFailed)
    // Where the operation gives the errno another meaning: an inotify watch's ENOSPC is its limit.
    #expect(QuireError.Code(.noSpace, for: .watch) == .limitExceeded)
  }

  @Test func theErrorNamesTheFileAndKeepsTheFailedCall() {
    let failure = SyscallFailure(call: "write", errno: .noSpace, path: "/x/notes.md")
    let error = QuireError(failure, while: .write, url: URL(fileURLWithPath: "/x/notes.md"))
    #expect(error.code == .diskFull)
    #expect(error.reason.contains("'notes.md'") && error.reason.contains("disk is full") && error.reason.contains("Free some space"))
    #expect(error.cause as? SyscallFailure == failure)
  }

  /// ENOSPC injected at the write of a device written through (`--output /dev/null`) is `diskFull`.
  @Test func aFullDiskWhileWritingThroughIsDiskFull() {
    let null = URL(fileURLWithPath: "/dev/null")
    expectQuireError(.diskFull, reasonContains: "disk is full") {
      try FaultPlan(failing: .write, with: .noSpace, under: "/dev/null").run {
        try OutputPath.writeThrough(Data("x".utf8), to: null, description: "a character device")
      }
    }
  }
}
