import FaultlinePosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few file-system reads the loader needs (list a folder, read a file), with the system's
/// own reason on failure ("No such file or directory") so errors can say why. Foundation's
/// messages on Linux do not name the cause, hence plain POSIX calls.
enum RuleFileSystem {
    /// Why a folder or file could not be read: the `strerror` text.
    struct Failure: Error {
        let reason: String
    }

    /// A file larger than this is refused rather than read into memory (a body file or a rule
    /// file of 64 MiB is a mistake, not a fixture).
    static let maximumFileSize = 64 << 20

    /// The names (not paths) of the entries in a folder, unsorted, without `.` and `..`.
    static func entries(of directory: String) throws(Failure) -> [String] {
        guard let handle = opendir(directory) else { throw Failure(reason: lastReason()) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The whole contents of a regular file.
    static func read(_ path: String) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw Failure(reason: lastReason()) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Failure(reason: lastReason()) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { throw Failure(reason: "not a regular file") }
        guard Int(status.st_size) <= maximumFileSize else {
            throw Failure(reason: "larger than \(maximumFileSize >> 20) MiB")
        }
        let contents: [UInt8]?
        do {
            contents = try FileIO.readToEnd(descriptor, limit: maximumFileSize)
        } catch {
            throw Failure(reason: String(cString: strerror(error.errno)))
        }
        guard let contents else { throw Failure(reason: "larger than \(maximumFileSize >> 20) MiB") }
        return contents
    }

    /// A file's size and modification time (`stat(2)`), as text that changes when either does;
    /// nil when the file cannot be read.
    static func stamp(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        #if canImport(Darwin)
        let modified = status.st_mtimespec
        #else
        let modified = status.st_mtim
        #endif
        return "\(status.st_size):\(modified.tv_sec).\(modified.tv_nsec)"
    }

    private static func lastReason() -> String { String(cString: strerror(errno)) }
}
