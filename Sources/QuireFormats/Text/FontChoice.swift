internal import CPango
internal import CPoppler
import Foundation
import QuireCore
import QuireSystem
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// One face fontconfig chose: its file, the face's index in the file, and how fontconfig's
/// rules (the system's and the user's) say to render it.
package struct ChosenFace: Hashable, Sendable {
  package var file: String
  package var index: Int32
  package var antialias = true
  package var hinting = true
  package var hintStyle: Int32 = 1
  package var autohint = false
  package var lcdFilter: Int32 = 1
  /// Bold drawn by thickening a regular face (no bold face is installed). (An italic without
  /// an italic face stays upright, as pango draws it: CJK text in an italic run, say.)
  package var embolden = false
}

/// The font families Quire's own text asks for.
package enum FontFamily: String, Sendable, CaseIterable { case sans, monospace }

/// What a run of text asks fontconfig for.
///
/// There is no language in it: pango asks for the process's language (`c` unless the program
/// set its locale, and Quire's does not), and fontconfig adds the environment's
/// (`FcDefaultSubstitute`: `FC_LANG`, `LC_ALL`, `LC_CTYPE`, `LANG`) to every choice, so
/// under `LANG=ja_JP.UTF-8` Latin text too is drawn in the Japanese face, as pango draws it.
package struct FontKey: Hashable, Sendable {
  package var family: FontFamily
  package var bold: Bool
  package var italic: Bool
  package init(family: FontFamily, bold: Bool, italic: Bool) {
    self.family = family
    self.bold = bold
    self.italic = italic
  }
}

/// The fonts fontconfig chooses for Quire's text, asked once and kept in the user's cache.
///
/// Asking fontconfig costs every process its start-up (`FcInit` reads about 35 configuration
/// files and the font caches: about 5 ms) and each font choice a sort of every installed font;
/// a thumbnailer call draws a few lines. So the answers (for each family, weight and slant:
/// the faces in fontconfig's order, each adding characters the ones before it
/// lack, with their rendering settings) are written to `$XDG_CACHE_HOME/quire/font-choice`
/// (0600, in a 0700 folder, no link followed) with a stamp of everything they depend on: the
/// modification time, size and inode of every configuration file and folder fontconfig read,
/// every font folder, the user's fontconfig and font folders (also when they do not exist
/// yet), the chosen font files, and the environment variables fontconfig reads (its own, the
/// home and XDG folders, and the locale's, which choose the language). A later process uses
/// the file only when the whole stamp still holds; otherwise it asks fontconfig again.
package final class FontChoice: Sendable {
  /// For each key, faces best first; each adds characters the ones before it lack. `nil`
  /// when there is no cache folder to keep them in: then each key is asked for when first
  /// needed (``asked``), so a process that cannot keep the answers asks only what it uses.
  package let chains: [FontKey: [ChosenFace]]?
  private let asked = Mutex<[FontKey: [ChosenFace]]>([:])

  init(chains: [FontKey: [ChosenFace]]?) { self.chains = chains }

  /// How many faces of fontconfig's sorted list are kept per key.
  static let chainLength = 24

  /// The choice for this process: the cached one when its stamp holds, else fontconfig's
  /// (and then cached).
  package static let current = load(environment: environment(environmentNames + ["XDG_CACHE_HOME"]))

  /// The variables among `names` that are set (`getenv`: a thumbnailer call reads a few, and
  /// has no use for a dictionary of the whole environment).
  static func environment(_ names: [String]) -> [String: String] {
    var values: [String: String] = [:]
    for name in names { if let value = getenv(name) { values[name] = String(cString: value) } }
    return values
  }

  /// The faces for `key`, best first; empty when fontconfig has none (then pango draws).
  package func chain(_ key: FontKey) -> [ChosenFace] {
    if let chains { return chains[key] ?? [] }
    return asked.withLock { asked in
      if let known = asked[key] { return known }
      let faces = FcInit() != 0 ? Self.ask(key) : []
      asked[key] = faces
      return faces
    }
  }

  package static var allKeys: [FontKey] {
    FontFamily.allCases.flatMap { family in
      [false, true].flatMap { bold in
        [false, true].map { italic in FontKey(family: family, bold: bold, italic: italic) }
      }
    }
  }

  // MARK: The cache file

  /// The variables that change what fontconfig reads.
  static let environmentNames = [
    "FONTCONFIG_FILE", "FONTCONFIG_PATH", "FONTCONFIG_SYSROOT", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "FC_LANG", "LC_ALL", "LC_CTYPE", "LANG",
  ]
  package static let fileName = "font-choice"
  static let header = "quire-font-choice\t4"

  /// The cached choice when its stamp holds; else fontconfig's for every key, written to
  /// the cache; else, when there is no cache folder (a thumbnailer's sandbox without a home),
  /// one that asks fontconfig for each key when first needed.
  package static func load(environment: [String: String]) -> FontChoice {
    let location = XDGBaseDirectory.cacheHome.location(in: environment)
    let folderURL = location.url.appendingPathComponent("quire", isDirectory: true)
    guard let folder = try? PrivateFolder.open(folderURL, below: location.trustedFolder) else { return FontChoice(chains: nil) }
    defer { SystemCalls.release(folder) }
    if let bytes = readCache(in: folder, folderURL: folderURL), let cached = parse(bytes, environment: environment) { return cached }
    // A folder this process cannot write, or a folder at the file's name, would have every
    // process ask for every key. Anything else at the name (a FIFO, a socket) is replaced:
    // the folder is this user's and private.
    guard case .success = SystemCalls.checkWritable(".", in: folder) else { return FontChoice(chains: nil) }
    if case .success(let info) = SystemCalls.lstat(fileName, in: folder) {
      let kind = info.st_mode & S_IFMT
      if kind == S_IFDIR { return FontChoice(chains: nil) }
      if kind != S_IFREG && kind != S_IFLNK { _ = SystemCalls.remove(fileName, in: folder) }
    }
    guard let (choice, stamps) = resolve(environment: environment) else { return FontChoice(chains: nil) }
    if let text = choice.cacheText(stamps: stamps, environment: environment) {
      // A cache: written without fsync; a failure only means the next process asks again.
      _ = AtomicFile.write(Array(text.utf8), named: fileName, in: folder, mode: 0o600, durable: false)
    }
    return choice
  }

  /// The cache file's bytes, when it is a regular file of at most 1 MiB, opened by the one
  /// opener for a file beneath its folder (`InputFile`: no link followed, a FIFO not waited on).
  static func readCache(in folder: FileDescriptor, folderURL: URL) -> [UInt8]? {
    let url = folderURL.appendingPathComponent(fileName)
    guard let raw = try? InputFile.open(fileName, beneath: folder, url: url, for: "read") else { return nil }
    let fd = FileDescriptor(rawValue: raw)
    defer { SystemCalls.release(fd) }
    guard case .success(let info) = SystemCalls.fstat(fd), info.st_size <= 1 << 20 else { return nil }
    return SystemCalls.read(fd, count: Int(info.st_size), at: 0)
  }

  /// The choice in a cache file's text, when its header, environment and every stamp hold.
  package static func parse(_ text: String, environment: [String: String]) -> FontChoice? {
    parse(Array(text.utf8), environment: environment)
  }

  /// ``parse(_:environment:)`` of the file's bytes: lines of tab-separated fields, read as
  /// bytes (a thumbnailer call reads this file each time; no grapheme breaking here).
  static func parse(_ bytes: [UInt8], environment: [String: String]) -> FontChoice? {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
    guard let first = lines.next(), first.elementsEqual(header.utf8) else { return nil }
    var faces: [ChosenFace] = []
    var chains: [FontKey: [ChosenFace]] = [:]
    var sawEnvironment = 0
    func text(_ field: ArraySlice<UInt8>) -> String { String(decoding: field, as: UTF8.self) }
    func number(_ field: ArraySlice<UInt8>) -> Int32? {
      guard !field.isEmpty, field.count < 10, field.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
      return field.reduce(0) { $0 * 10 + Int32($1 - 48) }
    }
    while let line = lines.next() {
      let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
      switch text(fields[0]) {
      case "env":
        guard fields.count == 3, fields[2].elementsEqual((environment[text(fields[1])] ?? "").utf8) else { return nil }
        sawEnvironment += 1
      case "stamp":
        guard fields.count == 3, fields[2].elementsEqual(stampState(of: text(fields[1])).utf8) else { return nil }
      case "face":
        guard fields.count == 10, number(fields[1]) == Int32(faces.count), let index = number(fields[3]), let hintStyle = number(fields[6]),
          let lcdFilter = number(fields[8])
        else { return nil }
        let flag = { (field: Int) in fields[field].elementsEqual("1".utf8) }
        faces.append(
          ChosenFace(
            file: text(fields[2]), index: index, antialias: flag(4), hinting: flag(5), hintStyle: hintStyle, autohint: flag(7),
            lcdFilter: lcdFilter, embolden: flag(9)))
      case "chain":
        guard fields.count == 5, let family = FontFamily(rawValue: text(fields[1])) else { return nil }
        var chain: [ChosenFace] = []
        for entry in fields[4].split(separator: UInt8(ascii: ",")) {
          guard let index = number(entry), Int(index) < faces.count else { return nil }
          chain.append(faces[Int(index)])
        }
        let key = FontKey(family: family, bold: fields[2].elementsEqual("1".utf8), italic: fields[3].elementsEqual("1".utf8))
        chains[key] = chain
      default:
        return nil
      }
    }
    guard sawEnvironment == environmentNames.count, allKeys.allSatisfy({ chains[$0]?.isEmpty == false }) else { return nil }
    return FontChoice(chains: chains)
  }

  /// The cache file's text for this choice; `nil` when a value cannot be written on a line
  /// of its own (a tab or line break in a path or variable).
  func cacheText(stamps: [String], environment: [String: String]) -> String? {
    guard let chains else { return nil }
    func plain(_ value: String) -> Bool { !value.contains("\t") && !value.contains("\n") && !value.contains("\r") }
    var out = Self.header + "\n"
    for name in Self.environmentNames {
      let value = environment[name] ?? ""
      guard plain(value) else { return nil }
      out += "env\t\(name)\t\(value)\n"
    }
    var faces: [ChosenFace] = []
    var numbers: [ChosenFace: Int] = [:]
    for key in Self.allKeys {
      for face in chains[key] ?? [] where numbers[face] == nil {
        numbers[face] = faces.count
        faces.append(face)
      }
    }
    for path in stamps + Set(faces.map(\.file)).sorted() {
      guard plain(path) else { return nil }
      out += "stamp\t\(path)\t\(Self.stampState(of: path))\n"
    }
    for (number, face) in faces.enumerated() {
      guard plain(face.file) else { return nil }
      let flags = [face.antialias, face.hinting, face.autohint, face.embolden].map { $0 ? "1" : "0" }
      out += "face\t\(number)\t\(face.file)\t\(face.index)\t\(flags[0])\t\(flags[1])\t\(face.hintStyle)\t\(flags[2])\t"
      out += "\(face.lcdFilter)\t\(flags[3])\n"
    }
    for key in Self.allKeys {
      let list = (chains[key] ?? []).map { String(numbers[$0]!) }.joined(separator: ",")
      out += "chain\t\(key.family.rawValue)\t\(key.bold ? 1 : 0)\t\(key.italic ? 1 : 0)\t\(list)\n"
    }
    return out
  }

  /// What a path's stamp says about it now: modification time, size, inode and mode, or `-`
  /// when it does not exist (so a folder made later is noticed too).
  static func stampState(of path: String) -> String {
    guard case .success(let info) = SystemCalls.stat(FilePath(path)) else { return "-" }
    return "\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_size) \(info.st_ino) \(info.st_mode)"
  }

  // MARK: Asking fontconfig

  /// Every key's faces from fontconfig, and the paths whose change would change them.
  static func resolve(environment: [String: String]) -> (FontChoice, [String])? {
    guard FcInit() != 0 else { return nil }
    var chains: [FontKey: [ChosenFace]] = [:]
    for key in allKeys {
      let faces = ask(key)
      guard !faces.isEmpty else { return nil }
      chains[key] = faces
    }
    return (FontChoice(chains: chains), configurationPaths(environment: environment))
  }

  /// fontconfig's sorted faces for `key` (after `FcInit`), at most ``chainLength``.
  static func ask(_ key: FontKey) -> [ChosenFace] {
    guard let pattern = FcPatternCreate() else { return [] }
    defer { FcPatternDestroy(pattern) }
    addString(pattern, FC_FAMILY, key.family == .sans ? "sans-serif" : "monospace")
    FcPatternAddInteger(pattern, FC_WEIGHT, key.bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR)
    FcPatternAddInteger(pattern, FC_SLANT, key.italic ? FC_SLANT_ITALIC : FC_SLANT_ROMAN)
    FcConfigSubstitute(nil, pattern, FcMatchPattern)
    FcDefaultSubstitute(pattern)
    var result = FcResultNoMatch
    guard let set = FcFontSort(nil, pattern, 1, nil, &result) else { return [] }
    defer { FcFontSetDestroy(set) }
    var faces: [ChosenFace] = []
    for index in 0..<Int(set.pointee.nfont) where faces.count < chainLength {
      guard let font = set.pointee.fonts[index], let prepared = FcFontRenderPrepare(nil, pattern, font) else { continue }
      defer { FcPatternDestroy(prepared) }
      if let face = chosenFace(prepared), !faces.contains(face) { faces.append(face) }
    }
    return faces
  }

  /// `FcPatternAddString`, whose values are `FcChar8` strings.
  static func addString(_ pattern: OpaquePointer, _ object: String, _ value: String) {
    value.withCString { text in
      text.withMemoryRebound(to: FcChar8.self, capacity: value.utf8.count + 1) { _ = FcPatternAddString(pattern, object, $0) }
    }
  }

  static func chosenFace(_ pattern: OpaquePointer) -> ChosenFace? {
    var file: UnsafeMutablePointer<FcChar8>? = nil
    guard FcPatternGetString(pattern, FC_FILE, 0, &file) == FcResultMatch, let file else { return nil }
    func int(_ object: String, _ fallback: Int32) -> Int32 {
      var value: Int32 = 0
      return FcPatternGetInteger(pattern, object, 0, &value) == FcResultMatch ? value : fallback
    }
    func bool(_ object: String, _ fallback: Bool) -> Bool {
      var value: FcBool = 0
      return FcPatternGetBool(pattern, object, 0, &value) == FcResultMatch ? value != 0 : fallback
    }
    return ChosenFace(
      file: String(cString: file), index: int(FC_INDEX, 0), antialias: bool(FC_ANTIALIAS, true), hinting: bool(FC_HINTING, true),
      hintStyle: int(FC_HINT_STYLE, 1), autohint: bool(FC_AUTOHINT, false), lcdFilter: int(FC_LCD_FILTER, 1),
      embolden: bool(FC_EMBOLDEN, false))
  }

  /// The configuration files and folders fontconfig read, its font folders (with every
  /// folder below them), and the user's fontconfig and font folders whether or not they exist.
  static func configurationPaths(environment: [String: String]) -> [String] {
    var paths: [String] = []
    func drain(_ list: OpaquePointer?) {
      guard let list else { return }
      defer { FcStrListDone(list) }
      while let item = FcStrListNext(list) { paths.append(String(cString: item)) }
    }
    drain(FcConfigGetConfigFiles(nil))
    drain(FcConfigGetConfigDirs(nil))
    drain(FcConfigGetFontDirs(nil))
    let home = environment["HOME"] ?? ""
    let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
    let data = environment["XDG_DATA_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.local/share"
    paths += [
      config + "/fontconfig", config + "/fontconfig/fonts.conf", config + "/fontconfig/conf.d", data + "/fonts", home + "/.fonts",
      home + "/.fonts.conf", home + "/.fonts.conf.d",
    ]
    var seen = Set<String>()
    return paths.filter { seen.insert($0).inserted }
  }
}
