import FaultlineConfig
import FaultlineCore

/// The job pipeline endpoints under `/jobs` (no credentials needed; see `JobStore`).
extension BackendState {
    /// `POST /jobs[?fail=download,convert]`, or a JSON body `{"fail": "download"}` /
    /// `{"fail": ["download", "write"]}`: a job whose listed steps always fail. 201 `{"job": id}`.
    mutating func createJob(_ request: BackendRequest) throws(BadRequest) -> BackendResponse {
        var names: [String] = []
        if let list = request.query.value("fail") {
            names += list.split(separator: ",").map(String.init)
        }
        if !request.body.isEmpty {
            guard let body = JSON.parse(request.body) else { throw BadRequest("the body is not a JSON document") }
            switch JSON.member("fail", of: body) {
            case nil: break
            case .string(let name): names.append(name)
            case .array(let elements):
                for element in elements {
                    guard case .string(let name) = element else { throw BadRequest("fail lists step names") }
                    names.append(name)
                }
            default: throw BadRequest("fail is a step name or a list of step names")
            }
        }
        var failing = Set<JobStore.Step>()
        for name in names {
            guard let step = JobStore.Step(rawValue: name) else {
                throw BadRequest("unknown step '\(name)' (download, convert or write)")
            }
            failing.insert(step)
        }
        let job = jobs.create(failing: failing)
        return .json(201, JSON.object(["job": JSON.number(job.id)]))
    }

    /// `GET /jobs/{id}`: each step's state and attempts, the cancel mark, completion calls.
    func jobStatus(_ id: String) -> BackendResponse {
        guard let job = jobs.job(id) else { return Self.unknownJob(id) }
        return .json(200, describe(job))
    }

    /// `POST /jobs/{id}/download|convert|write[?fail=1]`: 200 when the step succeeded, 500 when it
    /// failed, 409 when its dependency has not succeeded or the job was cancelled before write.
    mutating func runStep(_ step: JobStore.Step, of id: String, _ request: BackendRequest) throws(BadRequest)
        -> BackendResponse
    {
        switch jobs.run(step, job: id, forceFailure: try request.flag("fail")) {
        case .succeeded(let job):
            return .json(200, describe(job))
        case .failed:
            return .error(500, "\(step.rawValue)_failed", "step \(step.rawValue) of job \(id) failed")
        case .dependencyNotMet(let dependency):
            return .error(
                409, "dependency_failed",
                "step \(step.rawValue) of job \(id) needs a successful \(dependency.rawValue) first")
        case .cancelled:
            return .error(409, "job_cancelled", "job \(id) was cancelled; it will not be written")
        case .unknownJob:
            return Self.unknownJob(id)
        }
    }

    /// `POST /jobs/{id}/cancel`: marks the job; a later write is refused with 409.
    mutating func cancelJob(_ id: String) -> BackendResponse {
        guard let job = jobs.cancel(job: id) else { return Self.unknownJob(id) }
        return .json(200, describe(job))
    }

    /// `POST /jobs/{id}/complete`: the completion callback. Counted per id; always 200
    /// `{"job": "<id>", "calls": n}`, so a duplicate is visible in the count, not as an error.
    mutating func completeJob(_ id: String) -> BackendResponse {
        let calls = jobs.complete(job: id)
        return .json(200, JSON.object(["job": .string(id), "calls": JSON.number(calls)]))
    }

    private func describe(_ job: JobStore.Job) -> JSONValue {
        let steps = JobStore.Step.allCases.map { step in
            JSONMember(
                key: step.rawValue,
                value: JSON.object([
                    "state": .string(job.state(step).rawValue), "attempts": JSON.number(job.attempts[step] ?? 0),
                ]))
        }
        return JSON.object([
            "job": JSON.number(job.id), "cancelled": .bool(job.cancelled), "steps": .object(steps),
            "completionCalls": JSON.number(jobs.completionCalls[String(job.id)] ?? 0),
        ])
    }

    private static func unknownJob(_ id: String) -> BackendResponse {
        .error(404, "unknown_job", "there is no job \(id)")
    }
}
