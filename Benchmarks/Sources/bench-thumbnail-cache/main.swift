// bench-thumbnail-cache: `quire thumbnail --cache` on 2,000 small Markdown files, cold (an empty
// cache: every file drawn in worker processes) and warm (every thumbnail fresh: the batch's warm
// path, one stat and the cached PNG's tEXt chunks per file, no worker), beside process start
// (`quire --version`) and the peer's check of the same cache: GNOME's thumbnail factory
// (`GnomeDesktop.DesktopThumbnailFactory.lookup`, from python3-gi, as Nautilus asks it before
// drawing), whose interpreter start is measured alone and taken off too.
//
// Usage: swift run -c release --scratch-path .build bench-thumbnail-cache [ROUNDS] [QUIRE] [FILES]
//   QUIRE defaults to ../.build-release/release/quire (scripts/install builds it).
import BenchmarkSupport
import Foundation

let arguments = CommandLine.arguments
let rounds = arguments.count > 1 ? max(1, Int(arguments[1]) ?? 5) : 5
let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
let benchRoot = here.deletingLastPathComponent().deletingLastPathComponent()
let quire = arguments.count > 2 ? arguments[2] : benchRoot.appendingPathComponent("../.build-release/release/quire").standardizedFileURL.path
let count = arguments.count > 3 ? max(1, Int(arguments[3]) ?? 2000) : 2000
guard FileManager.default.isExecutableFile(atPath: quire) else {
  print("skipped: no quire at \(quire); build it with scripts/install or swift build -c release --static-swift-stdlib --scratch-path .build-release")
  exit(0)
}

let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-thumbnail-cache-\(getpid())")
let notes = work.appendingPathComponent("notes")
defer { try? FileManager.default.removeItem(at: work) }
for index in 0..<count {
  let folder = notes.appendingPathComponent("d\(index % 20)")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  let file = folder.appendingPathComponent("note \(index).md")
  try Data("# Note \(index)\n\nSome *Markdown* with `code`, a [link](https://example.org) and a list:\n\n- one\n- two\n".utf8).write(to: file)
  // Old enough that the batch does not wait for them to settle.
  try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: file.path)
}

let cache = work.appendingPathComponent("thumbnails").path
let batch = [quire, "thumbnail", "--cache-dir", cache, "--size", "256", notes.path]
let gnomeEnvironment = ["XDG_CACHE_HOME": work.path]
let lookupScript = """
  import os, sys, gi
  gi.require_version("GnomeDesktop", "3.0")
  from gi.repository import GnomeDesktop, Gio
  factory = GnomeDesktop.DesktopThumbnailFactory.new(GnomeDesktop.DesktopThumbnailSize.LARGE)
  found = 0
  for folder, _, names in os.walk(sys.argv[1]):
      for name in names:
          path = os.path.join(folder, name)
          if factory.lookup(Gio.File.new_for_path(path).get_uri(), int(os.stat(path).st_mtime)): found += 1
  sys.exit(0 if found == int(sys.argv[2]) else 1)
  """
let pythonStartScript = """
  import gi
  gi.require_version("GnomeDesktop", "3.0")
  from gi.repository import GnomeDesktop, Gio
  GnomeDesktop.DesktopThumbnailFactory.new(GnomeDesktop.DesktopThumbnailSize.LARGE)
  """
let hasGnome = spawnProcess(["/usr/bin/python3", "-c", pythonStartScript]).status == 0

print("thumbnail cache, \(count) small Markdown files at 256 px, median of \(rounds) rounds")
print("quire: \(quire)")
var colds: [Double] = []
var warms: [Double] = []
var starts: [Double] = []
var lookups: [Double] = []
var pythonStarts: [Double] = []
for round in 0..<rounds {
  try? FileManager.default.removeItem(atPath: cache)
  let cold = spawnProcess(batch)
  guard cold.status == 0 else {
    print("the cold run failed (status \(cold.status))")
    exit(1)
  }
  colds.append(cold.seconds)
  for _ in 0..<3 {
    let warm = spawnProcess(batch)
    guard warm.status == 0 else {
      print("the warm run failed (status \(warm.status))")
      exit(1)
    }
    warms.append(warm.seconds)
    starts.append(spawnProcess([quire, "--version"]).seconds)
    if hasGnome {
      let lookup = spawnProcess(["/usr/bin/python3", "-c", lookupScript, notes.path, String(count)], environment: gnomeEnvironment)
      if lookup.status != 0 { print("round \(round): GNOME's lookup did not find every thumbnail") }
      lookups.append(lookup.seconds)
      pythonStarts.append(spawnProcess(["/usr/bin/python3", "-c", pythonStartScript], environment: gnomeEnvironment).seconds)
    }
  }
}

let cold = median(colds)
let warm = median(warms)
let start = median(starts)
let perFile = { (total: Double, base: Double) in (total - base) / Double(count) * 1000 }
print("")
print("| run | wall (s) | per file beyond process start (ms) |")
print("|---|---|---|")
print(String(format: "| `quire --version` (process start) | %.4f | — |", start))
print(String(format: "| Quire cold (empty cache, workers draw) | %.3f | %.4f |", cold, perFile(cold, start)))
print(String(format: "| Quire warm (every thumbnail fresh) | %.4f | **%.4f** |", warm, perFile(warm, start)))
if hasGnome {
  let lookup = median(lookups)
  let pythonStart = median(pythonStarts)
  print(String(format: "| python3 + gi start (GnomeDesktop imported) | %.4f | — |", pythonStart))
  print(String(format: "| GNOME factory lookup loop (peer) | %.4f | %.4f |", lookup, perFile(lookup, pythonStart)))
  print(
    String(
      format: "\nwarm per file: Quire %.4f ms vs GNOME's lookup %.4f ms: ratio %.2f", perFile(warm, start), perFile(lookup, pythonStart),
      perFile(warm, start) / perFile(lookup, pythonStart)))
}
print(
  String(format: "warm vs cold: %.1f× faster; target ≤ 0.03 ms a file beyond process start: %@", cold / warm, perFile(warm, start) <= 0.03 ? "met" : "not met"))
