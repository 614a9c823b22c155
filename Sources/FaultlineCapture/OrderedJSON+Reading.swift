import Foundation

/// Reading a JSON document (a HAR file) with Foundation's `JSONDecoder`: the trace's own parser
/// reads one line at a time and is internal to FaultlineTrace. Members come back in no
/// particular order, which a reader that looks them up by name does not mind.
extension OrderedJSON: Decodable {
    /// Why a document is not JSON, as the decoder says it (with a line and column when it can).
    struct SyntaxError: Error {
        let message: String
    }

    /// Parses `bytes` (UTF-8; a byte order mark is tolerated, as HAR 1.2 asks of readers).
    static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> OrderedJSON {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        do {
            return try JSONDecoder().decode(OrderedJSON.self, from: Data(body))
        } catch let DecodingError.dataCorrupted(context) {
            let underlying = (context.underlyingError as? NSError)?.userInfo["NSDebugDescription"] as? String
            throw SyntaxError(message: underlying ?? context.debugDescription)
        } catch {
            throw SyntaxError(message: "\(error)")
        }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: AnyKey.self) {
            self = .object(
                try object.allKeys.map {
                    Member(key: $0.stringValue, value: try object.decode(OrderedJSON.self, forKey: $0))
                })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var elements: [OrderedJSON] = []
            while !array.isAtEnd { elements.append(try array.decode(OrderedJSON.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        // Bool before the numbers: JSONDecoder never reads a number as a Bool, nor the reverse.
        if single.decodeNil() {
            self = .null
        } else if let flag = try? single.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? single.decode(Int64.self) {
            self = .int(integer)
        } else if let number = try? single.decode(Double.self) {
            self = .double(number)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    /// Any member name.
    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }

        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { return nil }
    }
}
