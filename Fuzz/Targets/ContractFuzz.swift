import FaultlineContract
import FaultlineTrace

/// The contract loader (`faultline check --contract`); a contract that loads is then run over a
/// small fixed trace, so the clauses it configures are exercised too.
enum ContractFuzz {
    static let file = "contracts/fuzz.contract.json5"

    static let trace: Trace? = try? TraceReader.read(TraceCheckFuzz.smallTrace)

    static func run(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let (contract, errors) = ContractLoader.load(text: text, file: file)
        ConfigErrorCheck.check(loaded: contract != nil, errors: errors, file: file, textBytes: text.utf8.count)
        if let contract, let trace {
            _ = ContractChecker.check(trace, contract: contract)
        }
    }
}
