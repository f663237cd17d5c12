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
