public import QuireCoordination

extension TemporaryFolder {
  /// Where a test's coordinators keep their lock files: a private `run` folder (0700) of its
  /// own inside this folder, so parallel tests never share locks.
  public func privateCoordinationLocation() throws -> CoordinationLocation {
    CoordinationLocation(runtimeFolder: try privateFolder("run"))
  }
}

/// ``FolderSuite`` with a private coordination location inside the test's folder: the setup
/// of every suite that coordinates (locks, presenters) without touching the user's runtime
/// folder or another test's locks.
open class CoordinationSuite: FolderSuite {
  /// The test's coordination location (lock files in `run/` inside ``folder``).
  public let location: CoordinationLocation

  /// Makes the folder and the location inside it.
  public init() throws {
    let folder = try TemporaryFolder(prefix: "quire-\(Self.self)")
    location = try folder.privateCoordinationLocation()
    super.init(folder: folder)
  }
}

/// ``CoordinationSuite`` for a suite isolated to the main actor.
@MainActor
open class MainActorCoordinationSuite: MainActorFolderSuite {
  /// The test's coordination location (lock files in `run/` inside ``folder``).
  public let location: CoordinationLocation

  /// Makes the folder and the location inside it.
  public init() throws {
    let folder = try TemporaryFolder(prefix: "quire-\(Self.self)")
    location = try folder.privateCoordinationLocation()
    super.init(folder: folder)
  }
}
