import FaultlineConfig
import FaultlineCore
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file through which `faultline run` tells the other commands where its control API is:
/// `{"url": "http://127.0.0.1:PORT", "token": "...", "pid": N}`, mode 0600 in a 0700 folder,
/// because the token is a secret. Written at start, removed at a clean stop.
struct ControlFile {
    /// What the file holds.
    struct Contents: Equatable {
        var url: String
        var token: String
        var pid: Int32
    }

    let path: String

    /// `$FAULTLINE_HOME/control.json` when that variable is set, else `~/.faultline/control.json`.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let home = environment["FAULTLINE_HOME"], !home.isEmpty { return home + "/control.json" }
        return homeDirectory(environment) + "/.faultline/control.json"
    }

    /// The path as a person reads it in messages (`~/...` under the home folder).
    var displayPath: String {
        let home = Self.homeDirectory(ProcessInfo.processInfo.environment)
        if !home.isEmpty, path.hasPrefix(home + "/") { return "~" + path.dropFirst(home.count) }
        return path
    }

    private static func homeDirectory(_ environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        return NSHomeDirectory()
    }

    /// Writes `contents` atomically (a private temporary file renamed over the path), creating the
    /// folder with mode 0700 when it does not exist. Throws a sentence naming the path and the reason.
    func write(_ contents: Contents) throws(CommandFailure) {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(
                    atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CommandFailure("cannot create \(folder) for the control file: \(error.localizedDescription)")
            }
        }
        let text =
            JSONValue.object([
                JSONMember(key: "url", value: .string(contents.url)),
                JSONMember(key: "token", value: .string(contents.token)),
                JSONMember(key: "pid", value: .number(Double(contents.pid))),
            ]).jsonText(pretty: true) + "\n"
        let temporary = path + ".tmp-\(contents.pid)"
        // O_EXCL: never write the secret through a file (or link) someone else prepared.
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CommandFailure("cannot write the control file \(temporary): \(Self.reason())") }
        do {
            try CACommand.writeAll(Array(text.utf8), to: fd, name: "the control file \(temporary)")
        } catch {
            _ = close(fd)
            _ = unlink(temporary)
            throw error
        }
        // The mode given to open is filtered by the umask; make sure it is exactly owner read/write.
        _ = fchmod(fd, 0o600)
        _ = close(fd)
        guard rename(temporary, path) == 0 else {
            let reason = Self.reason()
            _ = unlink(temporary)
            throw CommandFailure("cannot write the control file \(path): \(reason)")
        }
    }

    /// The file's contents; nil when there is no file. Throws when it exists but cannot be read
    /// or is not a control file.
    func read() throws(CommandFailure) -> Contents? {
        guard let data = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw CommandFailure("cannot read the control file \(displayPath)")
            }
            return nil
        }
        do throws(ConfigError) {
            let reader = try ConfigObjectReader(
                JSON5.parse([UInt8](data), file: displayPath), context: "the control file")
            return Contents(
                url: try reader.requiredString("url"), token: try reader.requiredString("token"),
                pid: Int32(try reader.requiredInt("pid", in: 1...Int(Int32.max))))
        } catch {
            throw CommandFailure("\(error) (is \(displayPath) a faultline control file?)")
        }
    }

    /// Removes the file if it still names process `pid` (another proxy may have replaced it).
    func remove(ifOwnedBy pid: Int32) {
        guard let contents = try? read(), contents.pid == pid else { return }
        _ = unlink(path)
    }

    /// True when process `pid` exists (a control file left by a proxy that crashed names a dead one).
    static func isRunning(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}

/// A command that ran and failed (exit status 1), with the sentence to print.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
