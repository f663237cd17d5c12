import Foundation
import QuireTestSupport
import Testing

/// GNU ed's own test suite (the `testsuite/` folder of Debian's `ed` source package), fetched
/// with `apt-get source ed` into a cache folder outside the repository, and run by its own
/// `check.sh` twice: with GNU ed as `ED`, and with `quire`. Every case ed passes must pass.
enum GNUEdTestSuite {
  /// The unpacked source's `testsuite/` folder, or why it cannot be had.
  static let testsuite: Result<URL, SkipReason> = fetch()

  struct SkipReason: Error, CustomStringConvertible {
    var description: String
  }

  /// Whether the suite can run here (the source, GNU ed and `quire` are all there); prints why not.
  static var isAvailable: Bool {
    switch testsuite {
    case .failure(let reason):
      print("note: skipping GNU ed's test suite: \(reason)")
      return false
    case .success:
      guard ProcessRunner.ed != nil else {
        print("note: skipping GNU ed's test suite: GNU ed is not installed (apt-get install ed)")
        return false
      }
      return true
    }
  }

  /// `$XDG_CACHE_HOME/quire-tests` (or `~/.cache/quire-tests`): fetched sources live there.
  static var cacheFolder: URL {
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
    return base.appendingPathComponent("quire-tests")
  }

  /// Fetches Debian's `ed` source once (kept in the cache folder), or says why it cannot.
  private static func fetch() -> Result<URL, SkipReason> {
    let folder = cacheFolder.appendingPathComponent("ed-source")
    if let found = findTestsuite(in: folder) { return .success(found) }
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else {
      return .failure(SkipReason(description: "apt-get is not here to fetch Debian's ed source package"))
    }
    // Unpack beside the final folder, then move it in whole: two test runs never see half a tree.
    let staging = cacheFolder.appendingPathComponent("ed-source.\(getpid())")
    do {
      try? FileManager.default.removeItem(at: staging)
      try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    } catch {
      return .failure(SkipReason(description: "cannot make '\(staging.path)': \(error.localizedDescription)"))
    }
    defer { try? FileManager.default.removeItem(at: staging) }
    let download: ProcessResult
    do {
      download = try ChildProcess.runBlocking(URL(fileURLWithPath: "/usr/bin/apt-get"), ["source", "--download-only", "ed"], in: staging)
    } catch {
      return .failure(SkipReason(description: "cannot run apt-get source ed: \(error.localizedDescription)"))
    }
    guard download.status == 0 else {
      let output = download.output + download.error
      let reason = output.split(separator: "\n").last(where: { $0.hasPrefix("E:") }).map(String.init) ?? output
      return .failure(
        SkipReason(
          description: "apt-get source ed failed (\(reason.trimmingCharacters(in: .whitespacesAndNewlines))); scripts/setup enables deb-src entries"))
    }
    // Unpack the upstream tarball only: its testsuite/ is what check.sh runs.
    let tarballs = ((try? FileManager.default.contentsOfDirectory(atPath: staging.path)) ?? []).filter { $0.contains(".orig.tar") }
    guard let tarball = tarballs.first else {
      return .failure(SkipReason(description: "apt-get source ed left no .orig.tar archive in '\(staging.path)'"))
    }
    let untar: ProcessResult
    do {
      untar = try ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/tar"), ["-xf", tarball], in: staging)
    } catch {
      return .failure(SkipReason(description: "cannot unpack \(tarball): \(error.localizedDescription)"))
    }
    guard untar.status == 0, findTestsuite(in: staging) != nil else {
      return .failure(SkipReason(description: "\(tarball) has no testsuite/check.sh"))
    }
    try? FileManager.default.removeItem(at: folder)
    do {
      try FileManager.default.moveItem(at: staging, to: folder)
    } catch {
      // Another test run moved its copy in first: use that one.
      if findTestsuite(in: folder) == nil {
        return .failure(SkipReason(description: "cannot keep the ed source in '\(folder.path)': \(error.localizedDescription)"))
      }
    }
    return findTestsuite(in: folder).map { .success($0) } ?? .failure(SkipReason(description: "the ed source vanished from '\(folder.path)'"))
  }

  private static func findTestsuite(in folder: URL) -> URL? {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    for entry in entries.sorted() where entry.hasPrefix("ed-") {
      let testsuite = folder.appendingPathComponent(entry).appendingPathComponent("testsuite")
      if FileManager.default.fileExists(atPath: testsuite.appendingPathComponent("check.sh").path) { return testsuite }
    }
    return nil
  }

  /// The result of one `check.sh` run.
  struct Run: Sendable {
    /// check.sh's lines naming a failed case (`*** The script …/a.err exited abnormally ***`),
    /// with the folder of the scripts taken out so that two runs compare.
    var failures: Set<String>
    var output: String
    var status: Int32
  }

  /// Runs `check.sh` as its Makefile does (`check.sh TESTDIR VERSION` from the build folder,
  /// whose `ed` is the program under test): here `ed` is a symbolic link to `program`. The run
  /// takes a minute or more; ``ChildProcess`` waits for it off Swift's small task pool.
  static func check(with program: URL, testsuite: URL, in folder: TemporaryFolder) async throws -> Run {
    let objdir = folder.file("objdir-\(program.lastPathComponent)")
    try FileManager.default.createDirectory(at: objdir, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(at: objdir.appendingPathComponent("ed"), withDestinationURL: program)
    try FileManager.default.createDirectory(at: folder.file("runtime"), withIntermediateDirectories: true)
    // quire keeps versions and locks per user: in the test's folder, never the person's.
    let environment = [
      "PATH": "/usr/bin:/bin", "HOME": folder.url.path, "XDG_STATE_HOME": folder.file("state").path,
      "XDG_CACHE_HOME": folder.file("cache").path, "XDG_RUNTIME_DIR": folder.file("runtime").path,
    ]
    let result = try await ChildProcess.run(
      URL(fileURLWithPath: "/bin/sh"), [testsuite.appendingPathComponent("check.sh").path, testsuite.path, "1.19"], environment: environment,
      in: objdir)
    let output = result.output + result.error
    let failures = output.split(separator: "\n").filter { $0.hasPrefix("***") }.map {
      $0.replacingOccurrences(of: testsuite.path + "/", with: "")
    }
    return Run(failures: Set(failures), output: output, status: result.status)
  }
}

@Suite("GNU ed's own test suite, with quire as ed", .serialized)
struct GNUEdTestSuiteTests {
  @Test(.enabled(if: GNUEdTestSuite.isAvailable, "needs Debian's ed source (apt-get source ed) and GNU ed"), .timeLimit(.minutes(10)))
  func everyCaseEdPassesPassesWithQuire() async throws {
    let testsuite = try GNUEdTestSuite.testsuite.get()
    let ed = try #require(ProcessRunner.ed)
    let quire = try #require(ProcessRunner.quire, "the quire executable is not built; run 'swift build' first")
    let folder = try TemporaryFolder(prefix: "quire-ed-suite")
    defer { folder.remove() }
    let scripts = try FileManager.default.contentsOfDirectory(atPath: testsuite.path).filter { $0.hasSuffix(".ed") || $0.hasSuffix(".err") }
    // check.sh runs each .err script three ways and each .ed script once.
    #expect(scripts.count > 80, "the test suite has \(scripts.count) scripts")

    let edRun = try await GNUEdTestSuite.check(with: ed, testsuite: testsuite, in: folder)
    #expect(edRun.output.contains("testing ed-1.19"), "check.sh did not run: \(edRun.output)")
    let quireRun = try await GNUEdTestSuite.check(with: quire, testsuite: testsuite, in: folder)
    let regressions = quireRun.failures.subtracting(edRun.failures)
    #expect(regressions.isEmpty, "cases GNU ed passes and quire fails:\n\(regressions.sorted().joined(separator: "\n"))")
    if regressions.isEmpty { #expect(quireRun.status == edRun.status) }
  }
}
