/// What the checker holds a trace to: which clauses are on, and what the trace cannot know by
/// itself (which requests are callbacks, which steps depend on which, which marks cancel).
///
/// ``default`` checks every clause with nothing declared (so `exactly-once` and
/// `dependency-respected` have nothing to judge and are reported as skipped). A contract file
/// (``ContractLoader``) changes that.
public struct Contract: Sendable, Equatable {
    /// What reports call it: ``defaultName`` for the built-in one, the file name for one read by
    /// ``ContractLoader``.
    public var name: String
    /// The clauses judged; the others are reported as disabled.
    public var enabledClauses: Set<ClauseID>
    /// Requests that must happen exactly once per key.
    public var callbacks: [CallbackDeclaration]
    /// Named pipeline steps, for ``dependencies``, ``commitSteps`` and ``CallbackDeclaration/after``.
    public var steps: [StepDeclaration]
    /// Steps that must not be requested before another step succeeded (for the same key).
    public var dependencies: [StepDependency]
    /// Which trace marks mean "cancel", and how they name the key.
    public var cancel: CancelDeclaration?
    /// Steps that commit: never requested after a cancel mark for their key.
    public var commitSteps: [String]
    /// The request header that names one business operation across retries (an idempotency key
    /// or request ID), or nil to identify operations by method, URL and body alone.
    public var retryIdentityHeader: String?

    /// Every clause on, nothing declared, `Idempotency-Key` as the retry identity header.
    public static let `default` = Contract()

    /// The name of ``default`` in reports.
    public static let defaultName = "built-in default"

    /// Makes a contract; every argument defaults to ``default``'s value.
    public init(
        name: String = Contract.defaultName, enabledClauses: Set<ClauseID> = Set(ClauseID.allCases),
        callbacks: [CallbackDeclaration] = [], steps: [StepDeclaration] = [], dependencies: [StepDependency] = [],
        cancel: CancelDeclaration? = nil, commitSteps: [String] = [], retryIdentityHeader: String? = "Idempotency-Key"
    ) {
        self.name = name
        self.enabledClauses = enabledClauses
        self.callbacks = callbacks
        self.steps = steps
        self.dependencies = dependencies
        self.cancel = cancel
        self.commitSteps = commitSteps
        self.retryIdentityHeader = retryIdentityHeader
    }

    /// Whether the clause is judged.
    public func isEnabled(_ clause: ClauseID) -> Bool { enabledClauses.contains(clause) }

    /// Two contracts are equal when they judge alike: the name is left out, so an empty contract
    /// file equals ``default``.
    public static func == (lhs: Contract, rhs: Contract) -> Bool {
        lhs.enabledClauses == rhs.enabledClauses && lhs.callbacks == rhs.callbacks && lhs.steps == rhs.steps
            && lhs.dependencies == rhs.dependencies && lhs.cancel == rhs.cancel && lhs.commitSteps == rhs.commitSteps
            && lhs.retryIdentityHeader == rhs.retryIdentityHeader
    }

    /// The step with this name.
    public func step(named name: String) -> StepDeclaration? { steps.first { $0.name == name } }
}

/// A completion or callback that must happen exactly once per key
/// (`callbacks: [{ match: {...}, key: "job" }]`): a request, or the app's own completion, which
/// the testing library marks in the trace as a step named after the callback
/// (`proxy.step("complete", job: 7, outcome: .succeeded)` writes `step complete job=7
/// outcome=succeeded`).
public struct CallbackDeclaration: Sendable, Equatable {
    /// A name for messages (default: the path template), and the step name the app's own
    /// completions are marked with.
    public var name: String
    /// Which requests are this callback; nil for a completion the app only marks (no request).
    public var match: RequestPattern?
    /// The path parameter that names the key (`job` for `/jobs/{job}/complete`), also the word
    /// of a step mark that names it (`job=7`); nil: one key for all.
    public var key: String?
    /// Keys that must see exactly one callback even if none was sent (zero is then a violation).
    public var required: [String]
    /// A step whose success for a key makes that key required (`after: "write"`: every job
    /// written must be completed once).
    public var after: String?

    /// Makes a declaration.
    public init(name: String, match: RequestPattern?, key: String?, required: [String] = [], after: String? = nil) {
        self.name = name
        self.match = match
        self.key = key
        self.required = required
        self.after = after
    }
}

/// A named pipeline step (`steps: [{ name: "download", match: {...} }]`).
public struct StepDeclaration: Sendable, Equatable {
    /// The step's name, used by dependencies, `commit` and callbacks' `after`.
    public var name: String
    /// Which requests are this step.
    public var match: RequestPattern
    /// The path parameter that names the job (defaults to the template's only parameter); nil: one key for all.
    public var key: String?

    /// Makes a step.
    public init(name: String, match: RequestPattern, key: String?) {
        self.name = name
        self.match = match
        self.key = key
    }
}

/// `{ step: "convert", needs: "download" }`: convert is never requested for a key before a
/// download of that key succeeded (and never after its last download failed).
public struct StepDependency: Sendable, Equatable {
    /// The dependent step.
    public var step: String
    /// The step it needs.
    public var needs: String

    /// Makes a dependency.
    public init(step: String, needs: String) {
        self.step = step
        self.needs = needs
    }
}

/// `cancel: { mark: "cancel", key: "job" }`: a trace mark labelled `cancel job=42` cancels key
/// 42; a label with the mark's name alone (`cancel`) cancels every key.
public struct CancelDeclaration: Sendable, Equatable {
    /// The first word of the mark labels that cancel.
    public var mark: String
    /// The `name=value` word of the label that names the key; nil: the label's second word is the key.
    public var key: String?

    /// Makes a declaration.
    public init(mark: String, key: String?) {
        self.mark = mark
        self.key = key
    }

    /// The key a mark label cancels: `.some(nil)` for all keys, `.some("42")` for one, nil when
    /// the label is not a cancel mark.
    func cancelledKey(label: String) -> String?? {
        let words = label.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, first == mark else { return nil }
        let rest = words.dropFirst()
        if let key {
            for word in rest {
                if let equals = word.firstIndex(of: "="), word[..<equals] == key {
                    return .some(String(word[word.index(after: equals)...]))
                }
            }
        }
        if let bare = rest.first(where: { !$0.contains("=") }) { return .some(bare) }
        return .some(nil)
    }
}
