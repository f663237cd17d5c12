import Foundation
import QuirePreviews
import QuireTestSupport
import QuireTypes
import Testing

@Suite("Batch shards")
final class BatchShardTests: FolderSuite {

  typealias Shard = ThumbnailBatch.Shard

  @Test func parsesIndexOverCount() throws {
    #expect(try Shard(parsing: "0/4") == Shard(index: 0, count: 4))
    #expect(try Shard(parsing: "3/4").description == "3/4")
    for bad in ["4/4", "-1/4", "1/0", "1", "a/b", "", "1/2/3", "1/ 2"] {
      #expect(throws: QuireError.self, "\(bad)") { try Shard(parsing: bad) }
    }
  }

  @Test func slicesCoverEveryKeyExactlyOnceAndAreStable() throws {
    let keys = (0..<1000).map { "notes/\($0 % 7)/file \($0).md" }
    let shards = try (0..<4).map { try Shard(index: $0, count: 4) }
    for key in keys { #expect(shards.filter { $0.contains(key: key) }.count == 1) }
    // Stable: FNV-1a, not the per-process seeded Hasher. A known value pins it.
    #expect(try Shard(index: 0, count: 1).contains(key: "anything"))
    #expect(keys.filter { shards[0].contains(key: $0) }.count > 150)
    #expect(try Shard(parsing: "2/4").contains(key: "a") == (UInt64(0xaf63_dc4c_8601_ec8c) % 4 == 2))
  }

  @Test func autoReadsKubernetesAndSlurm() throws {
    #expect(try Shard.fromEnvironment(["JOB_COMPLETION_INDEX": "2", "QUIRE_SHARD_COUNT": "5"]) == Shard(index: 2, count: 5))
    #expect(try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"]) == Shard(index: 2, count: 4))
    #expect(
      try Shard.fromEnvironment(["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "6", "SLURM_ARRAY_TASK_STEP": "2"])
        == Shard(index: 2, count: 4))
    #expect(try Shard.fromEnvironment(["QUIRE_SHARD_INDEX": "0", "QUIRE_SHARD_COUNT": "1"]) == Shard(index: 0, count: 1))
    for bad: [String: String] in [[:], ["JOB_COMPLETION_INDEX": "1"], ["JOB_COMPLETION_INDEX": "x", "QUIRE_SHARD_COUNT": "2"], ["SLURM_ARRAY_TASK_ID": "1"]] {
      #expect(throws: QuireError.self, "\(bad)") { try Shard.fromEnvironment(bad) }
    }
  }

  /// Acceptance: four shards of a 400-file folder, run at once as four `quire thumbnail`
  /// processes, make 400 thumbnails with no file made twice, and their JSON lines concatenate
  /// into one report.
  @Test func fourShardsRunAtOnceMakeEveryFileExactlyOnce() async throws {
    let quire = try builtQuire()
    let input = folder.file("notes")
    for index in 0..<400 {
      let sub = input.appendingPathComponent("d\(index % 10)")
      try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
      try Data("# Note \(index)\n\nText.\n".utf8).write(to: sub.appendingPathComponent("n\(index).md"))
    }
    let output = folder.file("out")
    let runs = try await withThrowingTaskGroup(of: ProcessResult.self) { group in
      for index in 0..<4 {
        group.addTask {
          try await ChildProcess.run(
            quire, ["thumbnail", "--shard", "\(index)/4", "--size", "64", "--jobs", "1", "--json", "--output", output.path, input.path])
        }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    var lines: [ThumbnailBatch.Result] = []
    for run in runs {
      #expect(run.status == 0, "\(run.error)")
      for line in run.output.split(separator: "\n") {
        lines.append(try JSONDecoder().decode(ThumbnailBatch.Result.self, from: Data(line.utf8)))
      }
    }
    #expect(lines.count == 400)
    #expect(Set(lines.map(\.file)).count == 400, "a file was made by two shards")
    #expect(lines.allSatisfy { $0.status == .made })
    let pngs = FileManager.default.enumerator(atPath: output.path)?.compactMap { ($0 as? String)?.hasSuffix(".png") == true ? $0 : nil }
    #expect(pngs?.count == 400)
  }
}
