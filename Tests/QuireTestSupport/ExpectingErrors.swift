public import QuireTypes
public import Testing

/// Runs `body` and expects it to throw a ``QuireError`` with `code` whose reason contains each
/// of `reasonParts`; records an issue at the caller otherwise.
///
/// How tests check a refusal whose kind matters: the code a caller branches on and the words
/// a person reads, both, so a test of "refused clearly" cannot pass on a different refusal.
/// (Where any `QuireError` will do, `#expect(throws: QuireError.self)` says so.)
/// - Returns: The error, for further checks (its cause, its file), or `nil` when there was none.
@discardableResult
public func expectQuireError<Result>(
  _ code: QuireError.Code, reasonContains reasonParts: String...,
  sourceLocation: SourceLocation = #_sourceLocation,
  performing body: () throws -> Result
) -> QuireError? {
  do {
    let result = try body()
    Issue.record("expected a QuireError (\(code)), but it returned \(result)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return check(error, code: code, reasonParts: reasonParts, sourceLocation: sourceLocation)
  }
}

/// ``expectQuireError(_:reasonContains:sourceLocation:performing:)`` for work that suspends.
@discardableResult
public func expectQuireError<Result>(
  _ code: QuireError.Code, reasonContains reasonParts: String...,
  isolation: isolated (any Actor)? = #isolation,
  sourceLocation: SourceLocation = #_sourceLocation,
  performing body: () async throws -> Result
) async -> QuireError? {
  do {
    let result = try await body()
    Issue.record("expected a QuireError (\(code)), but it returned \(result)", sourceLocation: sourceLocation)
    return nil
  } catch {
    return check(error, code: code, reasonParts: reasonParts, sourceLocation: sourceLocation)
  }
}

/// Expects `error`, as a completion handler reported it, to be a ``QuireError`` with `code`
/// whose reason contains each of `reasonParts`; records an issue at the caller otherwise, and
/// when there was no error.
///
/// ``expectQuireError(_:reasonContains:sourceLocation:performing:)`` for work that reports
/// through a callback (a load's or a drop's completion handler): the test keeps what the
/// handler was given, then checks it here.
/// - Returns: The error, for further checks, or `nil` when it was not the one expected.
@discardableResult
public func expectQuireError(
  _ code: QuireError.Code, reasonContains reasonParts: String..., in error: (any Error)?,
  sourceLocation: SourceLocation = #_sourceLocation
) -> QuireError? {
  guard let error else {
    Issue.record("expected a QuireError (\(code)), but there was no error", sourceLocation: sourceLocation)
    return nil
  }
  return check(error, code: code, reasonParts: reasonParts, sourceLocation: sourceLocation)
}

/// Whether `error` is a ``QuireError`` with `code` whose reason contains each of `reasonParts`.
///
/// For a condition a test waits for or counts (a probe refused for the awaited reason, a
/// handler told of a timeout), where a different error is not yet a failure; where it is,
/// ``expectQuireError(_:reasonContains:in:sourceLocation:)`` records what came instead.
public func isQuireError(_ error: (any Error)?, _ code: QuireError.Code, reasonContains reasonParts: String...) -> Bool {
  guard let error = error as? QuireError, error.code == code else { return false }
  return reasonParts.allSatisfy { error.reason.contains($0) }
}

private func check(_ error: any Error, code: QuireError.Code, reasonParts: [String], sourceLocation: SourceLocation) -> QuireError? {
  guard let error = error as? QuireError else {
    Issue.record("expected a QuireError (\(code)), got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    return nil
  }
  #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
  for part in reasonParts {
    #expect(error.reason.contains(part), "the reason should say '\(part)': \(error.reason)", sourceLocation: sourceLocation)
  }
  return error
}

extension Result {
  /// The error of a failed call, `nil` when it succeeded: how a test checks a system call's
  /// result, `#expect(SystemCalls.stat(path).failure?.errno == .noSuchFileOrDirectory)`.
  public var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}
