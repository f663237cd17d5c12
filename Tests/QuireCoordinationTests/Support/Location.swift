import Foundation
import QuireCoordination
import QuireTestSupport

/// Where a test's coordinators keep their lock files: a private `run` folder of its own inside
/// `folder`, so parallel tests never share locks.
func privateLocation(in folder: TemporaryFolder) throws -> CoordinationLocation {
  let runtime = folder.file("run")
  try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
  return CoordinationLocation(runtimeFolder: runtime)
}
