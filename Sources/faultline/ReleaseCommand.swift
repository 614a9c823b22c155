import FaultlineConfig
import FaultlineCore
import FaultlineServer

/// `faultline release NAME ...` and `faultline fail NAME ...`: end held flows of a running proxy.
enum ReleaseCommand {
    static let releaseSpecs: [OptionSpec] =
        OptionSpec.table(
            """
            --id N                  release the hold with this id (see 'faultline holds')
            --all                   release every hold named NAME (default: the oldest)
            --status CODE           answer the flow with this status instead of continuing it
            --header 'NAME: VALUE'  with --status: a header of that answer (repeatable)
            --body TEXT             with --status: the body of that answer
            """) + [ControlCommand.jsonSpec] + ControlCommand.connectionSpecs

    static let failSpecs: [OptionSpec] =
        OptionSpec.table(
            """
            --id N  fail the hold with this id (see 'faultline holds')
            --all   fail every hold named NAME (default: the oldest)
            """) + [ControlCommand.jsonSpec] + ControlCommand.connectionSpecs

    static let releaseHelp = helpText(
        command: "release", synopsis: "NAME [--id N] [--all] [--status CODE [--header 'K: V']... [--body TEXT]]",
        summary: """
            Releases the oldest flow held under NAME (or the one with --id, or all of them): it goes on \
            as if never held. With --status the flow is answered with that response instead (a request \
            held before upstream never reaches it).
            """,
        specs: releaseSpecs)

    static let failHelp = helpText(
        command: "fail", synopsis: "NAME [--id N] [--all]",
        summary:
            "Fails the oldest flow held under NAME (or the one with --id, or all): its client connection is reset.",
        specs: failSpecs)

    static func release(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: releaseSpecs, command: "release", help: releaseHelp, positionals: 1...1) {
            parsed in
            var members = try selection(parsed, command: "release")
            if let text = parsed.value("--status") {
                guard let status = Int(text), (200...599).contains(status) else {
                    throw UsageError(
                        description: "faultline release: --status takes a status code from 200 to 599, not '\(text)'")
                }
                members.append(JSONMember(key: "status", value: .number(Double(status))))
                var headers: [JSONMember] = []
                for header in parsed.values("--header") {
                    guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                        throw UsageError(
                            description: "faultline release: --header takes 'Name: value', not '\(header)'")
                    }
                    let value = header[header.index(after: colon)...].drop { $0 == " " }
                    headers.append(JSONMember(key: String(header[..<colon]), value: .string(String(value))))
                }
                if !headers.isEmpty { members.append(JSONMember(key: "headers", value: .object(headers))) }
                if let body = parsed.value("--body") { members.append(JSONMember(key: "body", value: .string(body))) }
            } else if parsed.has("--header") || parsed.has("--body") {
                throw UsageError(
                    description: "faultline release: --header and --body need --status (the answer to send)")
            }
            let name = parsed.positionals[0]
            let client = try ControlCommand.client(parsed, command: "release")
            let result = try ControlCommand.call(
                client, "POST", "/v1/holds/\(ControlClient.pathSegment(name))/release", body: .object(members))
            if parsed.has("--json") {
                ControlCommand.printJSON(result)
            } else {
                let verb = parsed.value("--status").map { "answered with \($0)" } ?? "released"
                for hold in result["released"]?.list ?? [] { print(line(verb, hold)) }
            }
            return 0
        }
    }

    static func fail(_ arguments: [String]) -> Int32 {
        ControlCommand.run(arguments, specs: failSpecs, command: "fail", help: failHelp, positionals: 1...1) { parsed in
            let members = try selection(parsed, command: "fail")
            let client = try ControlCommand.client(parsed, command: "fail")
            let result = try ControlCommand.call(
                client, "POST", "/v1/holds/\(ControlClient.pathSegment(parsed.positionals[0]))/fail",
                body: .object(members))
            if parsed.has("--json") {
                ControlCommand.printJSON(result)
            } else {
                for hold in result["failed"]?.list ?? [] { print(line("failed (client connection reset)", hold)) }
            }
            return 0
        }
    }

    /// `{id}` / `{all}` from --id and --all.
    private static func selection(_ parsed: ParsedArguments, command: String) throws -> [JSONMember] {
        var members: [JSONMember] = []
        if let text = parsed.value("--id") {
            guard let id = Int(text), id > 0 else {
                throw UsageError(description: "faultline \(command): --id takes a hold id such as 3, not '\(text)'")
            }
            members.append(JSONMember(key: "id", value: .number(Double(id))))
        }
        if parsed.has("--all") { members.append(JSONMember(key: "all", value: .bool(true))) }
        return members
    }

    private static func line(_ verb: String, _ hold: JSONValue) -> String {
        "\(verb): \(hold["name"]?.stringValue ?? "") #\(hold["id"]?.integer ?? 0) (\(hold["summary"]?.stringValue ?? ""))"
    }
}
