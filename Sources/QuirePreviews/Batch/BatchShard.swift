public import Foundation
import QuireTypes

extension ThumbnailBatch {
  /// One of N stable slices of a batch's files, so that N machines (or N jobs of a job runner)
  /// share a batch without a scheduler: each file belongs to exactly one slice, and a re-run
  /// gives every file the same slice.
  ///
  /// A file's slice is the 64-bit FNV-1a hash of its path, modulo ``count``: for files found by
  /// walking a folder, the path below that folder (so machines that mount the files at
  /// different places still agree); for files named directly, their absolute path.
  public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// Which slice, from 0 to ``count`` − 1.
    public let index: Int
    /// How many slices.
    public let count: Int

    /// A shard; `index` must be below `count`.
    /// - Throws: ``QuireError`` `.invalidArgument` when `count` < 1 or `index` is outside 0..<count.
    public init(index: Int, count: Int) throws {
      guard count >= 1, (0..<count).contains(index) else {
        throw QuireError(.invalidArgument, "The shard \(index)/\(count) does not exist: give I/N with N ≥ 1 and I from 0 to N-1.")
      }
      self.index = index
      self.count = count
    }

    /// Reads `I/N`, e.g. `0/4` … `3/4`.
    /// - Throws: ``QuireError`` `.invalidArgument` naming the text when it is not `I/N`.
    public init(parsing text: String) throws {
      let parts = text.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else {
        throw QuireError(.invalidArgument, "'\(text)' is not a shard: give I/N (I from 0 to N-1, e.g. 0/4) or 'auto'.")
      }
      try self.init(index: index, count: count)
    }

    /// The shard a job runner assigned to this process, from its environment:
    /// - Kubernetes Indexed Jobs: `JOB_COMPLETION_INDEX` (0-based), with the count in
    ///   `QUIRE_SHARD_COUNT` (Kubernetes does not export `completions`; the manifest sets it).
    /// - Slurm job arrays: `SLURM_ARRAY_TASK_ID` and `SLURM_ARRAY_TASK_COUNT`, counted from
    ///   `SLURM_ARRAY_TASK_MIN` in steps of `SLURM_ARRAY_TASK_STEP` (so `--array=1-8` and
    ///   `--array=0-14:2` both work); `QUIRE_SHARD_COUNT` overrides the count.
    /// - Anything else: `QUIRE_SHARD_INDEX` and `QUIRE_SHARD_COUNT`.
    /// - Throws: ``QuireError`` `.invalidArgument` saying which variables are missing or wrong.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> Shard {
      func number(_ name: String) throws -> Int? {
        guard let text = environment[name] else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
          throw QuireError(.invalidArgument, "--shard auto: \(name)='\(text)' is not a whole number.")
        }
        return value
      }
      let explicitCount = try number("QUIRE_SHARD_COUNT")
      if let index = try number("JOB_COMPLETION_INDEX") {
        guard let count = explicitCount else {
          throw QuireError(
            .invalidArgument,
            "--shard auto: JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job) but QUIRE_SHARD_COUNT is not; set it to the Job's completions.")
        }
        return try Shard(index: index, count: count)
      }
      if let task = try number("SLURM_ARRAY_TASK_ID") {
        let minimum = try number("SLURM_ARRAY_TASK_MIN") ?? 0
        let step = max(1, try number("SLURM_ARRAY_TASK_STEP") ?? 1)
        let maximum = try number("SLURM_ARRAY_TASK_MAX")
        guard let count = try explicitCount ?? number("SLURM_ARRAY_TASK_COUNT") ?? maximum.map({ ($0 - minimum) / step + 1 }) else {
          throw QuireError(.invalidArgument, "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX is.")
        }
        return try Shard(index: (task - minimum) / step, count: count)
      }
      if let index = try number("QUIRE_SHARD_INDEX"), let count = explicitCount {
        return try Shard(index: index, count: count)
      }
      throw QuireError(
        .invalidArgument,
        "--shard auto found no job runner's index: set JOB_COMPLETION_INDEX (Kubernetes), SLURM_ARRAY_TASK_ID (Slurm) or QUIRE_SHARD_INDEX, with QUIRE_SHARD_COUNT."
      )
    }

    /// Whether the file with this shard key (see ``Shard``) belongs to this slice.
    public func contains(key: String) -> Bool {
      count == 1 || Int(Self.hash(key) % UInt64(count)) == index
    }

    /// 64-bit FNV-1a over the UTF-8 bytes: stable across runs, machines and Swift versions
    /// (unlike `Hasher`, which is seeded per process).
    static func hash(_ key: String) -> UInt64 {
      var hash: UInt64 = 0xcbf2_9ce4_8422_2325
      for byte in key.utf8 {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
      }
      return hash
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }
  }
}
