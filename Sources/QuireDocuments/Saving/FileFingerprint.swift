public import Foundation

/// What a document remembers of its file on disk, to tell a real change from a touch.
///
/// Two fingerprints describe the same version when size and content hash agree; the identity
/// (device and inode) and modification time are kept to explain a change, but a file that a
/// sync client only touched, or replaced with identical bytes, is not a change.
///
/// The content hash is ``ContentHash``, a 128-bit non-cryptographic hash: the question it
/// answers is "did these bytes change?", not "can an attacker forge a collision?" (whoever can
/// write the file can change it anyway). It runs at memory speed, where SHA-1 through libgit2
/// costs about 0.25 s per 100 MB here — a quarter of the budget for opening such a file.
public struct FileFingerprint: Sendable, Hashable, CustomStringConvertible {
  /// `st_dev` of the file.
  public var device: UInt64
  /// `st_ino` of the file.
  public var inode: UInt64
  /// The size in bytes.
  public var size: Int
  /// The modification time, in nanoseconds since 1970.
  public var modificationTime: Int64
  /// The hash of the file's bytes.
  public var contentHash: ContentHash

  public init(device: UInt64, inode: UInt64, size: Int, modificationTime: Int64, contentHash: ContentHash) {
    self.device = device
    self.inode = inode
    self.size = size
    self.modificationTime = modificationTime
    self.contentHash = contentHash
  }

  /// Whether `other` holds the same bytes (size and content hash); identity and time are ignored.
  public func hasSameContent(as other: FileFingerprint) -> Bool {
    size == other.size && contentHash == other.contentHash
  }

  public var description: String {
    "dev \(device) ino \(inode), \(size) bytes, hash \(contentHash)"
  }

  /// Reads the fingerprint of the file at `url` (following symlinks) together with its bytes.
  ///
  /// - Throws: ``QuireError`` naming `url` when it cannot be opened or read.
  public static func read(at url: URL) throws -> (fingerprint: FileFingerprint, contents: Data) {
    try FileReader.read(url)
  }

  /// Reads the rest of `descriptor`, a regular file the caller opened for reading (through a
  /// seam of its own, say), together with its fingerprint, as ``read(at:)`` does: a file of
  /// 4 MiB or more is copied inside the kernel into a private scratch file that the returned
  /// `Data` maps (its unchanged bytes then cost page cache, not the process's memory, and a
  /// ``TextStorage`` made from it shares them). The caller still owns and closes `descriptor`.
  ///
  /// - Parameters:
  ///   - descriptor: An open file descriptor of a regular file.
  ///   - url: The file's name, for errors.
  /// - Throws: ``QuireError`` naming `url` when it is not a regular file, is too large to hold,
  ///   or cannot be read.
  public static func read(from descriptor: Int32, url: URL) throws -> (fingerprint: FileFingerprint, contents: Data) {
    try FileReader.read(descriptor: descriptor, url: url)
  }

  /// The fingerprint of the file at `url` now (symbolic links followed), read a megabyte at a
  /// time: the file is never held in memory (a check for changes on disk before a save).
  ///
  /// - Throws: ``QuireError`` naming `url` when it cannot be opened or read.
  public static func current(at url: URL) throws -> FileFingerprint {
    try FileReader.fingerprint(url)
  }
}

/// A 128-bit hash of bytes: two independent 64-bit lanes over 8-byte words, each word mixed in
/// by a full 64×64→128-bit multiply whose halves are folded together, then the lengths folded
/// in and the murmur3 avalanche to finish.
///
/// The fold matters: a multiply alone carries a changed bit only upwards, so a change in a
/// word's top bits could be cancelled exactly by a one-bit change 16 bytes later (two edits
/// of one character each gave the same hash before 0.2).
///
/// Not cryptographic (see ``FileFingerprint``); stable across runs and machines.
public struct ContentHash: Sendable, Hashable, CustomStringConvertible {
  public var high: UInt64
  public var low: UInt64

  public init(high: UInt64, low: UInt64) {
    self.high = high
    self.low = low
  }

  /// Hashes `bytes`.
  public init(_ bytes: UnsafeRawBufferPointer) {
    var hasher = ContentHasher()
    hasher.update(bytes)
    self = hasher.finalize()
  }

  /// Hashes `data`.
  public init(_ data: Data) {
    self = data.withUnsafeBytes { ContentHash($0) }
  }

  /// Finishes the hash of `count` bytes from the lanes `a` and `b` and the last `tail` bytes
  /// (fewer than 16): what ``init(_:)-(UnsafeRawBufferPointer)`` and ``ContentHasher`` share.
  fileprivate init(a startA: UInt64, b startB: UInt64, tail: UnsafeRawBufferPointer, count: Int) {
    let k1: UInt64 = 0x9E37_79B9_7F4A_7C15
    let k2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    var a = startA
    var b = startB
    var word: UInt64 = 0
    var shift: UInt64 = 0
    var spill = false
    for byte in tail {
      word |= UInt64(byte) << shift
      shift += 8
      if shift == 64 {
        a = ContentHash.fold(a ^ word, k1)
        word = 0
        shift = 0
        spill = true
      }
    }
    if shift > 0 || !spill { b = ContentHash.fold(b ^ word ^ 0xFF, k2) }
    a ^= UInt64(count)
    b ^= UInt64(count) &* k1
    a = a &+ b
    b = b &+ a
    self.high = Self.avalanche(a)
    self.low = Self.avalanche(b ^ self.high)
  }

  /// `value` × `key` as 128 bits, the halves folded into 64: every bit of `value` reaches
  /// most bits of the result, downwards too.
  @inline(__always)
  fileprivate static func fold(_ value: UInt64, _ key: UInt64) -> UInt64 {
    let product = value.multipliedFullWidth(by: key)
    return product.high ^ product.low
  }

  private static func avalanche(_ value: UInt64) -> UInt64 {
    var x = value
    x ^= x >> 33
    x &*= 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    x &*= 0xC4CE_B9FE_1A85_EC53
    x ^= x >> 33
    return x
  }

  public var description: String {
    String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}

/// ``ContentHash`` of bytes given in pieces: the same hash as of the pieces joined, without
/// joining them (a save hashes a text's chunks as it writes them).
struct ContentHasher {
  private var a: UInt64 = 0x243F_6A88_85A3_08D3
  private var b: UInt64 = 0x1319_8A2E_0370_7344
  private var count = 0
  /// Bytes not yet hashed (fewer than 16): the start of the next 16-byte step.
  private var carry: (UInt64, UInt64) = (0, 0)
  private var carried = 0

  /// Adds `bytes`.
  mutating func update(_ bytes: UnsafeRawBufferPointer) {
    guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
    count += bytes.count
    var i = 0
    if carried > 0 {
      let take = min(16 - carried, bytes.count)
      withUnsafeMutableBytes(of: &carry) { raw in
        raw.baseAddress!.advanced(by: carried).copyMemory(from: base, byteCount: take)
      }
      carried += take
      i = take
      guard carried == 16 else { return }
      step(carry.0, carry.1)
      carried = 0
    }
    while i + 16 <= bytes.count {
      step(base.loadUnaligned(fromByteOffset: i, as: UInt64.self), base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
      i += 16
    }
    if i < bytes.count {
      carry = (0, 0)
      withUnsafeMutableBytes(of: &carry) { raw in
        raw.baseAddress!.copyMemory(from: base + i, byteCount: bytes.count - i)
      }
      carried = bytes.count - i
    }
  }

  @inline(__always)
  private mutating func step(_ w1: UInt64, _ w2: UInt64) {
    a = ContentHash.fold(a ^ w1, 0x9E37_79B9_7F4A_7C15)
    b = ContentHash.fold(b ^ w2, 0xC2B2_AE3D_27D4_EB4F)
  }

  /// The hash of everything added.
  func finalize() -> ContentHash {
    var tail = carry
    let carried = carried
    return withUnsafeBytes(of: &tail) { raw in
      ContentHash(a: a, b: b, tail: UnsafeRawBufferPointer(rebasing: raw[..<carried]), count: count)
    }
  }
}
