// Saving a package again after a small edit: what FileWrapper's reuse of unchanged children
// (hard links from the previous save) saves, against rewriting every byte, against the
// kernel copying them (sendfile), and against `cp -a` of the package as the peer.
//
//   cd Benchmarks && swift build -c release --scratch-path .build && .build/release/bench-packages [FILES] [MiB]
import BenchmarkSupport
import Foundation
import Quire

let arguments = CommandLine.arguments
let files = arguments.count > 1 ? Int(arguments[1]) ?? 100 : 100
let mebibytes = arguments.count > 2 ? Int(arguments[2]) ?? 1 : 1
let size = mebibytes << 20
let runs = 5

let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("bench-packages-\(getpid())")
try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: base) }
let package = base.appendingPathComponent("Doc.textbundle")

func makePackage() -> FileWrapper {
  let root = FileWrapper(directoryWithFileWrappers: [:])
  let assets = FileWrapper(directoryWithFileWrappers: [:])
  assets.preferredFilename = "assets"
  for index in 0..<files {
    assets.addRegularFile(withContents: Data(repeating: UInt8(truncatingIfNeeded: index), count: size), preferredFilename: "image-\(index).bin")
  }
  root.addFileWrapper(assets)
  root.addRegularFile(withContents: Data("# text\n".utf8), preferredFilename: "text.md")
  return root
}

func editText(_ root: FileWrapper, _ round: Int) {
  if let old = root.fileWrappers?["text.md"] { root.removeFileWrapper(old) }
  root.addRegularFile(withContents: Data("# text \(round)\n".utf8), preferredFilename: "text.md")
}

try makePackage().write(to: package, options: .atomic)
var reuse: [Double] = []
var kernel: [Double] = []
var rewrite: [Double] = []
var peer: [Double] = []
var methods: [FileWrapper.ReuseMethod: Int] = [:]
for round in 0..<runs {
  // 1. Read, edit the text, save with originalContentsURL: unchanged assets are hard-linked.
  let document = try FileWrapper(url: package)
  editText(document, round)
  reuse.append(try seconds { try document.write(to: package, options: .atomic, originalContentsURL: package) })
  methods = document.lastWriteReuse
  // 2. The same without originalContentsURL: the kernel copies each unchanged file (sendfile).
  let again = try FileWrapper(url: package)
  editText(again, round)
  kernel.append(try seconds { try again.write(to: package, options: .atomic) })
  // 3. Every byte written from memory (what a save without reuse does).
  let inMemory = makePackage()
  editText(inMemory, round)
  rewrite.append(try seconds { try inMemory.write(to: package, options: .atomic) })
  // Peer: `cp -a` of the package beside it (no fsync, so it is a floor for copying), then removal.
  let copy = base.appendingPathComponent("copy")
  let process = Process()
  process.executableURL = URL(fileURLWithPath: "/bin/cp")
  process.arguments = ["-a", package.path, copy.path]
  peer.append(
    try seconds {
      try process.run()
      process.waitUntilExit()
    })
  try FileManager.default.removeItem(at: copy)
}
print("package: \(files) files × \(mebibytes) MiB, text edited, saved atomically with fsync; median of \(runs)")
print(String(format: "reuse (hard links)        %8.1f ms   %@", median(reuse) * 1000, "\(methods)"))
print(String(format: "kernel copy (sendfile)    %8.1f ms", median(kernel) * 1000))
print(String(format: "rewrite every byte        %8.1f ms", median(rewrite) * 1000))
print(String(format: "peer: cp -a (no fsync)    %8.1f ms", median(peer) * 1000))
print(String(format: "ratio rewrite / reuse     %8.1f×", median(rewrite) / median(reuse)))
print(String(format: "ratio cp -a / reuse       %8.1f×", median(peer) / median(reuse)))
