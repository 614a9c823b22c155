public import FaultlineConfig

/// Loads rule files (README "Rule files"): a folder of JSON5 scenarios plus an optional
/// `auth-profile.json5`, validated against the model with `file:line:column` errors.
///
/// Loading never throws: the report lists every error and holds the rule set built from the
/// files that had none, so `faultline rules check` can print everything at once and a reload can
/// keep the last good rule set.
public enum RuleSetLoader {
    /// The auth profile's file name inside a rules folder.
    public static let profileFileName = "auth-profile.json5"

    /// Names, sizes and modification times of a folder's `*.json5` files, as one string that
    /// changes when any of them is added, removed or written: what a watcher polls. Plain
    /// `readdir` and `stat`: about 50,000 instructions a check for six files under callgrind,
    /// where Foundation's `attributesOfItem` (which also looks up each file's owner and group
    /// names) took 225,000, every 300 ms for as long as the proxy runs.
    public static func signature(of directory: String) -> String {
        guard let names = try? RuleFileSystem.entries(of: directory) else { return "unreadable" }
        return names.filter { $0.hasSuffix(".json5") }.sorted().map { name in
            "\(name):\(RuleFileSystem.stamp(directory + "/" + name) ?? "-")"
        }.joined(separator: "|")
    }

    /// Loads every `*.json5` file in `directory` (not its subfolders; names starting with `.`,
    /// such as editor lock files, are skipped). `auth-profile.json5` is the auth profile, read
    /// first so scenarios can be checked against its roles; every other file is one scenario, in
    /// file-name order. Scenario names must be unique across the folder (the later file gets the
    /// error, at its `scenario` key or at 1:1 when the name comes from the file name).
    ///
    /// Paths in errors, `Scenario.file` and `files` are `directory + "/" + name` (trailing
    /// slashes of `directory` dropped). A folder or file that cannot be read is an error at the
    /// path itself (``SourceLocation/whole(_:)``: no line or column) naming the system's reason.
    public static func load(directory: String) -> RuleLoadReport {
        var folder = directory
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        let names: [String]
        do {
            names = try RuleFileSystem.entries(of: folder).filter { $0.hasSuffix(".json5") && !$0.hasPrefix(".") }
                .sorted()
        } catch {
            let location = SourceLocation.whole(folder)
            return RuleLoadReport(
                ruleSet: .empty, errors: [ConfigError("cannot read the rules folder: \(error.reason)", at: location)],
                files: [])
        }
        let prefix = folder == "/" ? "/" : folder + "/"
        var report = RuleLoadReport(ruleSet: .empty, errors: [], files: names.map { prefix + $0 })

        var knowledge = ProfileKnowledge.absent
        if names.contains(profileFileName) {
            let path = prefix + profileFileName
            switch read(path) {
            case .success(let bytes):
                let (profile, errors) = AuthProfileDecoder(file: path).decode(bytes)
                report.errors.append(contentsOf: errors)
                report.ruleSet.profile = profile
                knowledge = profile.map(ProfileKnowledge.loaded) ?? .broken
            case .failure(let error):
                report.errors.append(error)
                knowledge = .broken
            }
        }

        var namedIn: [String: String] = [:]
        for name in names where name != profileFileName {
            let path = prefix + name
            let outcome: RuleFileDecoder.Outcome
            switch read(path) {
            case .success(let bytes):
                outcome = RuleFileDecoder(file: path, folder: folder, profile: knowledge).decode(bytes)
            case .failure(let error):
                report.errors.append(error)
                continue
            }
            var errors = outcome.errors
            if let scenarioName = outcome.name {
                if let other = namedIn[scenarioName] {
                    let message = "scenario '\(scenarioName)' is already defined in \(other)"
                    errors = LoaderDiagnostics.sortedByPosition(
                        errors + [ConfigError(message, at: outcome.nameLocation)])
                } else {
                    namedIn[scenarioName] = path
                }
            }
            report.errors.append(contentsOf: errors)
            report.warnings.append(contentsOf: outcome.warnings)
            if errors.isEmpty, let scenario = outcome.scenario { report.ruleSet.scenarios.append(scenario) }
        }
        return report
    }

    /// Decodes one scenario file's text. `file` names it in errors and in `Scenario.file`, gives
    /// the default scenario name (the file name without `.json5`), and its folder is where
    /// `bodyFile` paths start. Roles and `scope: "lineage"` are checked against `profile` (with
    /// none, only the `business` role exists). The scenario is nil when there is any error.
    public static func loadScenario(text: String, file: String, profile: AuthProfile? = nil) -> (
        Scenario?, [ConfigError]
    ) {
        let knowledge = profile.map(ProfileKnowledge.loaded) ?? .absent
        let outcome = RuleFileDecoder(file: file, folder: folder(of: file), profile: knowledge).decode(Array(text.utf8))
        return (outcome.scenario, outcome.errors)
    }

    /// Decodes an auth profile's text; `file` names it in errors and in `AuthProfile.file`. The
    /// profile is nil when there is any error.
    public static func loadProfile(text: String, file: String) -> (AuthProfile?, [ConfigError]) {
        AuthProfileDecoder(file: file).decode(Array(text.utf8))
    }

    private static func folder(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "." }
        return slash == file.startIndex ? "/" : String(file[..<slash])
    }

    private static func read(_ path: String) -> Result<[UInt8], ConfigError> {
        do {
            return .success(try RuleFileSystem.read(path))
        } catch {
            return .failure(
                ConfigError("cannot read the file: \(error.reason)", at: .whole(path))
            )
        }
    }
}
