import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `url` when it is an executable; otherwise prints `skipped: NAME is missing; HINT` and ends
/// the benchmark with status 0 (a benchmark whose peer is not installed has nothing to compare).
@discardableResult
public func requireProgram(_ url: URL, _ hint: String) -> URL {
  guard FileManager.default.isExecutableFile(atPath: url.path) else {
    print("skipped: \(url.path) is missing; \(hint)")
    exit(0)
  }
  return url
}

/// What bench-repl-100mib and bench-text-100mib share: the file, the four ed scripts, running a
/// program under GNU time for its wall time and peak memory, and the lines each case prints.
public enum EdComparison {
  /// GNU ed, the peer.
  public static let ed = URL(fileURLWithPath: "/usr/bin/ed")
  /// GNU time, whose `%M` is a process's peak resident memory.
  public static let time = URL(fileURLWithPath: "/usr/bin/time")

  /// Ends the benchmark (status 0, `skipped: …`) unless GNU ed and GNU time are installed.
  public static func requirePeers() {
    requireProgram(time, "install GNU time (apt-get install time; scripts/setup installs it)")
    requireProgram(ed, "install GNU ed (apt-get install ed; scripts/setup installs it)")
  }

  /// A fresh scratch folder for the benchmark `name` (remove it at the end).
  public static func makeFolder(_ name: String) throws -> URL {
    let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(name)-\(getpid())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Writes the file both benchmarks edit: numbered lines of about 64 bytes, "fox" on every
  /// line, `mebibytes` MiB, written in pieces so that the harness stays small.
  public static func writeFile(at url: URL, mebibytes: Int) throws -> (size: Int, lines: Int) {
    var size = 0
    var lines = 0
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    var piece = [UInt8]()
    while size < mebibytes << 20 {
      lines += 1
      let line = Array("\(lines): the quick brown fox jumps over the lazy dog, then rests\n".utf8)
      piece.append(contentsOf: line)
      size += line.count
      if piece.count >= 1 << 20 {
        try handle.write(contentsOf: piece)
        piece.removeAll(keepingCapacity: true)
      }
    }
    try handle.write(contentsOf: piece)
    try handle.close()
    return (size, lines)
  }

  /// The four cases: a name, a short key (bench-text-100mib's child takes it), the ed script.
  public static func cases(lineCount: Int) -> [(name: String, key: String, script: String)] {
    [
      ("open + $=", "open", "$=\nq\n"),
      (",s/fox/cat/g + w", "subst", ",s/fox/cat/g\nw\nq\n"),
      ("small edits + w", "small", "1000s/fox/cat/\n\(lineCount / 2)d\n\(lineCount / 3)a\nan added line\n.\n$a\nthe last line\n.\n2,3j\nw\nq\n"),
      ("g/re/d + u + w", "gdel", "g/^[0-9]*999:/d\nu\nw\nq\n"),
    ]
  }

  /// What one child process cost.
  public struct Cost: Sendable {
    public var seconds: Double
    public var peakBytes: Int
    public var status: Int32
  }

  /// Runs `argv` under GNU time from a process of its own (a child spawned straight from the
  /// harness would inherit the harness's high-water mark), standard input from `input`,
  /// output to /dev/null, errors to a file in `folder` (printed when it fails); returns its
  /// wall time, peak memory and exit status.
  public static func run(_ argv: [String], input: URL, in folder: URL) throws -> Cost {
    let peakFile = folder.appendingPathComponent("peak.txt")
    let errors = folder.appendingPathComponent("stderr.txt")
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input.path, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errors.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let full = [time.path, "-f", "%M", "-o", peakFile.path] + argv
    var cArguments = full.map { strdup($0) } + [nil]
    defer { for pointer in cArguments { free(pointer) } }
    var pid: pid_t = 0
    var status: Int32 = 0
    var usage = rusage()
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, time.path, &actions, nil, &cArguments, environ)
    guard spawned == 0 else { throw NSError(domain: "posix_spawn", code: Int(spawned)) }
    while wait4(pid, &status, 0, &usage) < 0, errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let peakText = (try? String(contentsOf: peakFile, encoding: .utf8)) ?? ""
    let kibibytes = peakText.split(whereSeparator: \.isNewline).compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last ?? 0
    let code = (status >> 8) & 0xFF
    if code != 0, let message = try? String(contentsOf: errors, encoding: .utf8) {
      print("       \(argv.first ?? "") failed: \(message.prefix(400))")
    }
    return Cost(seconds: seconds, peakBytes: kibibytes * 1024, status: code)
  }

  /// The worst figures over the cases, for the last line.
  struct Worst {
    var ratio = 0.0
    var memory = 0.0
  }

  /// Prints one case (each program's median time, Quire's ratio to ed, peak memory as a
  /// multiple of the file, whether the files are identical, exit statuses) and updates `worst`.
  static func report(_ name: String, ed: [Cost], quire: [Cost], fileSize: Int, identical: Bool, worst: inout Worst) {
    let edTime = median(ed.map(\.seconds))
    let quireTime = median(quire.map(\.seconds))
    let edPeak = ed.map(\.peakBytes).max() ?? 0
    let quirePeak = quire.map(\.peakBytes).max() ?? 0
    BenchmarkSupport.report("ed     \(name)", edTime, unit: "s")
    BenchmarkSupport.report("quire  \(name)", quireTime, unit: "s", baseline: edTime)
    if ed.count > 1 {
      // The spread: each program's fastest and slowest run, and the ratio of each run to ed's
      // run beside it.
      let ratios = zip(quire, ed).map { $0.seconds / max($1.seconds, 1e-9) }
      print(
        String(
          format: "       runs: ed %.3f–%.3f s, quire %.3f–%.3f s, ratio per run %.3f–%.3f", ed.map(\.seconds).min() ?? 0, ed.map(\.seconds).max() ?? 0,
          quire.map(\.seconds).min() ?? 0, quire.map(\.seconds).max() ?? 0, ratios.min() ?? 0, ratios.max() ?? 0))
    }
    print(
      String(
        format: "       peak memory: ed %.0f MiB (%.2f× file), quire %.0f MiB (%.2f× file); files %@; exit ed %d, quire %d",
        Double(edPeak) / 1_048_576, Double(edPeak) / Double(fileSize), Double(quirePeak) / 1_048_576,
        Double(quirePeak) / Double(fileSize), identical ? "identical" : "DIFFER", ed.map(\.status).max() ?? 0,
        quire.map(\.status).max() ?? 0))
    worst.ratio = max(worst.ratio, edTime > 0 ? quireTime / edTime : 0)
    worst.memory = max(worst.memory, Double(quirePeak) / Double(fileSize))
  }

  /// Runs every case `runs` times on fresh copies of `original` (GNU ed on one, Quire on the
  /// other; `scratch` is removed before each run too), prints each case and the summary.
  ///
  /// - Parameter quire: The command for Quire on `file` with the case's `key` and ed `script`,
  ///   and what its standard input is.
  public static func compareCases(
    in folder: URL, original: URL, fileSize: Int, lineCount: Int, runs: Int, scratch: [URL] = [],
    quire: (_ key: String, _ script: URL, _ file: URL) -> (argv: [String], input: URL)
  ) throws {
    var worst = Worst()
    for (index, item) in cases(lineCount: lineCount).enumerated() {
      let script = folder.appendingPathComponent("script-\(index).ed")
      try Data(item.script.utf8).write(to: script)
      var edCosts: [Cost] = []
      var quireCosts: [Cost] = []
      let edFile = folder.appendingPathComponent("ed.txt")
      let quireFile = folder.appendingPathComponent("quire.txt")
      for _ in 0..<runs {
        for url in [edFile, quireFile] + scratch { try? FileManager.default.removeItem(at: url) }
        try FileManager.default.copyItem(at: original, to: edFile)
        try FileManager.default.copyItem(at: original, to: quireFile)
        edCosts.append(try run([ed.path, "-s", edFile.path], input: script, in: folder))
        let command = quire(item.key, script, quireFile)
        quireCosts.append(try run(command.argv, input: command.input, in: folder))
      }
      let identical = FileManager.default.contentsEqual(atPath: edFile.path, andPath: quireFile.path)
      report(item.name, ed: edCosts, quire: quireCosts, fileSize: fileSize, identical: identical, worst: &worst)
    }
    printSummary(worst)
  }

  /// The last line: the worst ratio and memory against their targets.
  static func printSummary(_ worst: Worst) {
    print(String(format: "worst quire/ed time ratio %.2f (target ≤ 1.0); quire's peak memory %.2f× the file (target ≤ 1.5)", worst.ratio, worst.memory))
  }
}
