public import Foundation
public import QuireCoordination

extension TemporaryFolder {
  /// Where a test's coordinators keep their lock files: the `run` folder inside this folder,
  /// so parallel tests never share locks (``CoordinationSuite`` makes it, mode 0700).
  public var coordinationLocation: CoordinationLocation { CoordinationLocation(runtimeFolder: file("run")) }
}

/// ``FolderSuite`` with a private coordination location inside the test's folder: the setup
/// of every suite that coordinates (locks, presenters) without touching the user's runtime
/// folder or another test's locks.
open class CoordinationSuite: FolderSuite {
  /// The test's coordination location: lock files in `run/` inside ``folder``.
  public var location: CoordinationLocation { folder.coordinationLocation }

  /// Makes the folder and its private `run` folder.
  public init() throws {
    try super.init()
    try folder.privateFolder("run")
  }
}

/// ``CoordinationSuite`` for a suite isolated to the main actor.
@MainActor
open class MainActorCoordinationSuite: MainActorFolderSuite {
  /// As ``CoordinationSuite/location``.
  public var location: CoordinationLocation { folder.coordinationLocation }

  /// As ``CoordinationSuite/init()``.
  public init() throws {
    try super.init()
    try folder.privateFolder("run")
  }
}

extension FileCoordinator {
  /// Whether a coordinated read of `url` finds another access queued ahead of it in the lock's
  /// queue: the read gives up after 20 ms, and its timeout's reason says so.
  ///
  /// How a test sees, without a pause, that an access it started (a load, a thumbnail) waits
  /// behind a writer holding the file: it polls this with `eventually`.
  public func findsAccessQueuedAhead(ofReading url: URL) async -> Bool {
    do {
      try await coordinate(readingItemAt: url, timeout: .milliseconds(20)) { _ in }
      return false
    } catch {
      return isQuireError(error, .timedOut, reasonContains: "queued ahead")
    }
  }
}
