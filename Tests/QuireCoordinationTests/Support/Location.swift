import Foundation
import QuireCoordination
import QuireTestSupport

/// Where a test's coordinators keep their lock files: a private `run` folder of its own inside
/// `folder`, so parallel tests never share locks.
func privateLocation(in folder: TemporaryFolder) throws -> CoordinationLocation {
  let runtime = try folder.privateFolder("run")
  return CoordinationLocation(runtimeFolder: runtime)
}

/// The setup the coordination suites share: a temporary folder of the test's own, with a
/// private coordination location inside it, removed when the test ends (Swift Testing makes
/// a new suite instance per test).
class CoordinationSuite: FolderSuite {
  let location: CoordinationLocation

  init() throws {
    let folder = try TemporaryFolder()
    location = try privateLocation(in: folder)
    super.init(folder: folder)
  }
}
