import Foundation
import QuireTypes
internal import ZIPFoundation

/// Reads and writes the zip archive of a `.textpack` with ZIPFoundation.
///
/// ZIPFoundation (pure Swift over zlib) was chosen over libzip because it reads and writes
/// archives in memory with Swift errors, so no C shim, temporary extraction folder or
/// path handling in C is needed; a textpack is small (text and a few images).
///
/// Archives are read into a ``FileWrapper`` tree in memory, never extracted to disk, with
/// bounds against hostile archives: at most 10,000 entries and 1 GiB uncompressed, names
/// with `..`, absolute paths or NUL refused, symbolic link entries skipped.
enum TextPackArchive {
  static let maximumEntries = 10_000
  static let maximumBytes: Int64 = 1 << 30

  static func read(from url: URL) throws -> FileWrapper {
    let archive: Archive
    do {
      archive = try Archive(url: url, accessMode: .read)
    } catch {
      if !FileManager.default.fileExists(atPath: url.path) {
        throw InputFile.missingError(url, for: "open")
      }
      throw QuireError(
        .invalidContent, "Cannot open \(QuireError.name(url)) as a textpack: it is not a zip archive. The file may be damaged.", url: url, cause: error)
    }
    return try read(archive, url: url)
  }

  /// Reads the archive held in `data` (the bytes of the textpack `url`, named in errors).
  static func read(data: Data, url: URL) throws -> FileWrapper {
    let archive: Archive
    do {
      archive = try Archive(data: data, accessMode: .read)
    } catch {
      throw QuireError(
        .invalidContent, "Cannot open \(QuireError.name(url)) as a textpack: it is not a zip archive. The file may be damaged.", url: url, cause: error)
    }
    return try read(archive, url: url)
  }

  private static func read(_ archive: Archive, url: URL) throws -> FileWrapper {
    let root = FileWrapper(directoryWithFileWrappers: [:])
    var count = 0
    var total: Int64 = 0
    var entries: [(parts: [String], entry: Entry)] = []
    for entry in archive {
      count += 1
      guard count <= maximumEntries else {
        throw QuireError(
          .limitExceeded, "Cannot open \(QuireError.name(url)): it has more than \(maximumEntries) entries, more than a textpack holds.", url: url)
      }
      let parts = entry.path.split(separator: "/").map(String.init)
      guard !entry.path.hasPrefix("/"), !parts.contains(".."), !entry.path.contains("\0") else {
        throw QuireError(
          .invalidContent, "Cannot open \(QuireError.name(url)): it holds an entry named '\(entry.path)' that points outside the archive.", url: url)
      }
      if parts.first == "__MACOSX" || parts.last == ".DS_Store" { continue }
      entries.append((parts, entry))
    }
    // Most textpacks hold one "NAME.textbundle/" folder; some hold the bundle's files at the top.
    let tops = Set(entries.compactMap(\.parts.first))
    let strip = tops.count == 1 && (tops.first?.hasSuffix(".textbundle") ?? false) && entries.allSatisfy { $0.parts.count > 1 || $0.entry.type == .directory }
    for (parts, entry) in entries {
      let path = strip ? Array(parts.dropFirst()) : parts
      guard !path.isEmpty else { continue }
      var folder = root
      for name in path.dropLast() {
        if let existing = folder.fileWrappers?[name], existing.isDirectory {
          folder = existing
        } else {
          let child = FileWrapper(directoryWithFileWrappers: [:])
          child.preferredFilename = name
          folder.addFileWrapper(child)
          folder = child
        }
      }
      guard let name = path.last else { continue }
      switch entry.type {
      case .directory:
        if folder.fileWrappers?[name] == nil {
          let child = FileWrapper(directoryWithFileWrappers: [:])
          child.preferredFilename = name
          folder.addFileWrapper(child)
        }
      case .symlink:
        continue  // a link could point anywhere; a TextBundle has no use for one
      case .file:
        var data = Data()
        do {
          // This form of extract hands back the CRC-32 it computed; checking it is ours.
          let checksum = try archive.extract(entry, skipCRC32: false) { chunk in
            total += Int64(chunk.count)
            if total > maximumBytes { throw QuireError(.limitExceeded, "Cannot open \(QuireError.name(url)): it unpacks to more than 1 GiB.", url: url) }
            data.append(chunk)
          }
          guard checksum == entry.checksum else {
            throw QuireError(
              .invalidContent, "Cannot open \(QuireError.name(url)): its entry '\(entry.path)' is damaged (its checksum does not match).", url: url)
          }
        } catch let error as QuireError {
          throw error
        } catch {
          throw QuireError(.invalidContent, "Cannot open \(QuireError.name(url)): its entry '\(entry.path)' is damaged.", url: url, cause: error)
        }
        folder.addRegularFile(withContents: data, preferredFilename: name)
      }
    }
    return root
  }

  /// The zip archive of `root` under `folderName/`, deflated.
  static func data(for root: FileWrapper, folderName: String, url: URL) throws -> Data {
    do {
      let archive = try Archive(data: Data(), accessMode: .create)
      try add(root, path: folderName, to: archive)
      guard let data = archive.data else {
        throw QuireError(.libraryFailure, "Cannot save \(QuireError.name(url)): the zip archive could not be made in memory.", url: url)
      }
      return data
    } catch let error as QuireError {
      throw error
    } catch {
      throw QuireError(
        .libraryFailure, "Cannot save \(QuireError.name(url)): making its zip archive failed. The previous version is untouched.", url: url, cause: error)
    }
  }

  private static func add(_ wrapper: FileWrapper, path: String, to archive: Archive) throws {
    let date = wrapper.fileAttributes.modificationDate ?? Date()
    switch wrapper.kind {
    case .directory:
      try archive.addEntry(with: path + "/", type: .directory, uncompressedSize: 0, modificationDate: date, permissions: 0o755) { (_: Int64, _: Int) -> Data in
        Data()
      }
      for (name, child) in (wrapper.fileWrappers ?? [:]).sorted(by: { $0.key < $1.key }) {
        try add(child, path: path + "/" + name, to: archive)
      }
    case .regularFile:
      let data = try wrapper.contents()
      try archive.addEntry(
        with: path, type: .file, uncompressedSize: Int64(data.count), modificationDate: date, permissions: 0o644,
        compressionMethod: .deflate
      ) { (position: Int64, size: Int) -> Data in
        data.subdata(in: Int(position)..<min(data.count, Int(position) + size))
      }
    case .symbolicLink:
      break  // not carried into a textpack
    }
  }
}
