// bench-thumbnails: PDF page-1 thumbnails at 256 px over ../shared/corpus/pdf, in one run:
// Quire's batch (worker processes, cold output folder and cold/warm freedesktop cache), a
// pdftoppm loop (sequential and xargs -P on all cores), vipsthumbnail (one call, and xargs -P),
// and the C floor (poppler-glib + cairo + libpng in one process, no Quire), plus Quire's
// in-process library path and the PNG settings it uses.
//
// Usage: swift run -c release --scratch-path .build bench-thumbnails [ROUNDS] [QUIRE]
//   QUIRE defaults to ../.build/release/quire (build it with
//   `swift build -c release --static-swift-stdlib --product quire`).
// pdfjs-function_based_shading.pdf is left out of the timed set for every tool: it stalls every
// cairo renderer for minutes (see BASELINES.md); Quire's batch on it is reported on its own.
import BenchmarkSupport
import Foundation
import Quire

let arguments = CommandLine.arguments
let rounds = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 3) : 3
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let benchRoot = here.deletingLastPathComponent().deletingLastPathComponent()
let quire = arguments.count > 2 ? arguments[2] : benchRoot.appendingPathComponent("../.build/release/quire").standardizedFileURL.path
let cores = ProcessInfo.processInfo.activeProcessorCount
let size = 256

guard let corpus = corpusFolder("pdf") else { exit(0) }
let stalling = "pdfjs-function_based_shading.pdf"
let files = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
  .filter { $0.hasSuffix(".pdf") && $0 != stalling }.sorted().map { corpus.appendingPathComponent($0).path }
guard FileManager.default.isExecutableFile(atPath: quire) else {
  print("skipped: no quire at \(quire); build it with swift build -c release --static-swift-stdlib --product quire")
  exit(0)
}
let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-thumbnails-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

/// Runs a program (argument array, no shell) with stdin from `input`, waits, and returns wall
/// seconds and the peak RSS of the largest process in its tree (wait4's ru_maxrss), in MiB.
func spawn(_ argv: [String], stdin input: Data? = nil, quiet: Bool = true) -> (seconds: Double, peakMiB: Double, status: Int32, cpu: Double) {
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  var inputPipe: [Int32] = [-1, -1]
  if input != nil {
    _ = pipe(&inputPipe)
    posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
    posix_spawn_file_actions_addclose(&actions, inputPipe[1])
  }
  if quiet {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
  }
  let cArgs = argv.map { strdup($0) } + [nil]
  defer { for argument in cArgs { free(argument) } }
  var pid: pid_t = 0
  let start = ContinuousClock.now
  guard posix_spawnp(&pid, argv[0], &actions, nil, cArgs, environ) == 0 else { return (0, 0, -1, 0) }
  if let input {
    close(inputPipe[0])
    input.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = write(inputPipe[1], raw.baseAddress! + done, raw.count - done)
        if n <= 0 { break }
        done += n
      }
    }
    close(inputPipe[1])
  }
  var status: Int32 = 0
  var usage = rusage()
  _ = wait4(pid, &status, 0, &usage)
  let elapsed = ContinuousClock.now - start
  let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
  return (seconds, Double(usage.ru_maxrss) / 1024, status, cpu)
}

func freshFolder(_ name: String) -> String {
  let url = work.appendingPathComponent(name)
  try? FileManager.default.removeItem(at: url)
  try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url.path
}

// The floor, compiled now with cc.
let floorSource = benchRoot.appendingPathComponent("floors/thumbnails.c").path
let floorBinary = work.appendingPathComponent("thumbnails-floor").path
let pkg = Process()
pkg.executableURL = URL(fileURLWithPath: "/usr/bin/pkg-config")
pkg.arguments = ["--cflags", "--libs", "poppler-glib", "cairo", "libpng"]
let pkgOut = Pipe()
pkg.standardOutput = pkgOut
try pkg.run()
pkg.waitUntilExit()
let flags = String(decoding: pkgOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ").map {
  String($0).trimmingCharacters(in: .whitespacesAndNewlines)
}.filter { !$0.isEmpty }
let cc = spawn(["cc", "-O2", "-o", floorBinary, floorSource] + flags, quiet: false)
guard cc.status == 0 else {
  print("could not compile the floor")
  exit(1)
}

print("PDF page-1 thumbnails, \(size) px, \(files.count) files of corpus/pdf (without \(stalling)), \(cores) cores, median of \(rounds) rounds")
print("quire: \(quire)")

typealias Tool = (name: String, run: () -> (seconds: Double, peakMiB: Double, status: Int32, cpu: Double))
let pairs = files.enumerated().flatMap { [$0.element, "\(work.path)/xargs/\($0.offset)"] }
let pairData = Data(pairs.joined(separator: "\0").utf8 + [0])
let fileData = Data(files.joined(separator: "\0").utf8 + [0])
let cacheDir = work.appendingPathComponent("cache").path

let tools: [Tool] = [
  (
    "Quire batch --jobs \(cores) (output folder)",
    {
      spawn([quire, "thumbnail", "--size", "\(size)", "--jobs", "\(cores)", "--output", freshFolder("quire")] + files)
    }
  ),
  (
    "Quire batch --jobs 1 (output folder)",
    {
      spawn([quire, "thumbnail", "--size", "\(size)", "--jobs", "1", "--output", freshFolder("quire1")] + files)
    }
  ),
  (
    "Quire batch --cache, cold",
    {
      try? FileManager.default.removeItem(atPath: cacheDir)
      return spawn([quire, "thumbnail", "--size", "\(size)", "--cache-dir", cacheDir, "--settle-time", "0"] + files)
    }
  ),
  (
    "Quire batch --cache, warm (same cache again)",
    {
      spawn([quire, "thumbnail", "--size", "\(size)", "--cache-dir", cacheDir, "--settle-time", "0"] + files)
    }
  ),
  (
    "pdftoppm loop, sequential",
    {
      let out = freshFolder("pdftoppm")
      let start = ContinuousClock.now
      var peak = 0.0
      var cpu = 0.0
      for (index, file) in files.enumerated() {
        let r = spawn(["pdftoppm", "-png", "-f", "1", "-l", "1", "-scale-to", "\(size)", "-singlefile", file, "\(out)/\(index)"])
        peak = max(peak, r.peakMiB)
        cpu += r.cpu
      }
      let e = ContinuousClock.now - start
      return (Double(e.components.seconds) + Double(e.components.attoseconds) / 1e18, peak, 0, cpu)
    }
  ),
  (
    "pdftoppm, xargs -P \(cores)",
    {
      _ = freshFolder("xargs")
      return spawn(
        ["xargs", "-0", "-P", "\(cores)", "-n", "2", "pdftoppm", "-png", "-f", "1", "-l", "1", "-scale-to", "\(size)", "-singlefile"], stdin: pairData)
    }
  ),
  (
    "vipsthumbnail, one call",
    {
      let out = freshFolder("vips")
      return spawn(["vipsthumbnail", "-s", "\(size)", "-o", "\(out)/%s.png"] + files)
    }
  ),
  (
    "vipsthumbnail, xargs -P \(cores)",
    {
      let out = freshFolder("vips2")
      return spawn(
        ["xargs", "-0", "-P", "\(cores)", "-n", "\((files.count + cores - 1) / cores)", "vipsthumbnail", "-s", "\(size)", "-o", "\(out)/%s.png"],
        stdin: fileData)
    }
  ),
  ("C floor, 1 process", { spawn([floorBinary, "\(size)", freshFolder("floor1"), "1"] + files) }),
  ("C floor, \(cores) processes", { spawn([floorBinary, "\(size)", freshFolder("floor"), "\(cores)"] + files) }),
]

var times = Array(repeating: [Double](), count: tools.count)
var peaks = Array(repeating: 0.0, count: tools.count)
var cpus = Array(repeating: [Double](), count: tools.count)
for round in 1...rounds {
  for (index, tool) in tools.enumerated() {
    let result = tool.run()
    times[index].append(result.seconds)
    cpus[index].append(result.cpu)
    peaks[index] = max(peaks[index], result.peakMiB)
  }
  print("round \(round) done")
}
let medians = times.map(median)
let quireWall = medians[0]
let floorWall = medians[tools.count - 1]
print("")
let cpuMedians = cpus.map(median)
print("| tool | wall (s) | files/s | CPU s (user+sys) | peak RSS (MiB) | tool ÷ Quire wall | tool ÷ Quire CPU |")
print("|---|---|---|---|---|---|---|")
for (index, tool) in tools.enumerated() {
  let wall = medians[index]
  print(
    String(
      format: "| %@ | %.3f | %.1f | %.2f | %.0f | %.2f | %.2f |", tool.name, wall, Double(files.count) / wall, cpuMedians[index], peaks[index],
      wall / quireWall, cpuMedians[index] / cpuMedians[0]))
}
print(
  String(
    format: "\nQuire --jobs %d ÷ C floor %d processes: wall %.2f, CPU %.2f", cores, cores, quireWall / floorWall, cpuMedians[0] / cpuMedians[tools.count - 1]))
print(String(format: "Quire --jobs %d ÷ best peer (vipsthumbnail xargs -P %d): wall %.2f", cores, cores, quireWall / medians[7]))
let cold = medians[2]
let warm = medians[3]
print(String(format: "\nwarm cache: %.4f s vs cold %.3f s: %.0f× faster", warm, cold, cold / warm))
print(
  String(format: "Quire --jobs 1 ÷ C floor 1 process: wall %.2f, CPU %.2f", medians[1] / medians[tools.count - 2], cpuMedians[1] / cpuMedians[tools.count - 2]))

// The stalling file: Quire's batch ends it at the time limit, without a failure record.
let stall = spawn([
  quire, "thumbnail", "--size", "\(size)", "--time-limit", "10", "--json", "--output", freshFolder("stall"), corpus.appendingPathComponent(stalling).path,
])
print(String(format: "\n%@ alone through Quire's batch (10 s limit): %.2f s, exit %d", stalling, stall.seconds, (stall.status >> 8) & 0xff))

// PNG settings, in process: the same bitmaps encoded three ways.
@MainActor func encode(_ label: String, _ body: (Bitmap) throws -> Data) {
  var bitmaps: [Bitmap] = []
  for file in files.prefix(60) {
    if let pdf = try? PDFFile(contentsOf: URL(fileURLWithPath: file)), pdf.pageCount > 0, let b = try? pdf.render(page: 0, longestSide: size) {
      bitmaps.append(b)
    }
  }
  var bytes = 0
  let t =
    seconds {
      for _ in 0..<3 {
        bytes = 0
        for b in bitmaps { bytes += (try? body(b))?.count ?? 0 }
      }
    } / 3
  print(String(format: "PNG %@: %.2f ms/image, %.1f KiB/image", label, t * 1000 / Double(bitmaps.count), Double(bytes) / 1024 / Double(bitmaps.count)))
}
print("")
encode("libpng level 1, Sub filter (Quire)", { try $0.pngData(text: [], options: .fast) })
encode("libpng level 6, adaptive filters", { try $0.pngData(text: [], options: .small) })
encode("cairo_surface_write_to_png       ", { try $0.pngData() })

// Quire's library in this process, one thread, no worker processes (what an embedder gets).
let generator = ThumbnailGenerator()
let inProcess = seconds {
  for file in files {
    let url = URL(fileURLWithPath: file)
    _ = try? generator.generateBestRepresentation(for: ThumbnailRequest(fileURL: url, contentType: .pdf, maximumSize: size)).pngData(text: [])
  }
}
print(
  String(
    format: "Quire library in-process, 1 thread: %.3f s = %.1f files/s (C floor 1 process: %.3f s; ratio %.2f)", inProcess, Double(files.count) / inProcess,
    medians[tools.count - 2], inProcess / medians[tools.count - 2]))
