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
