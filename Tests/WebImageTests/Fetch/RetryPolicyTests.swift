import Foundation
import Testing
@testable import WebImage
import WebImageTestOrigin

/// ``RetryPolicy`` as values: which failures retry, the backoff, Retry-After, clamps.
@Suite("RetryPolicy: values", .timeLimit(.minutes(1)))
struct RetryPolicyTests {
    @Test("only transient failures retry")
    func retryable() {
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(RetryPolicy.isRetryable(WebImageError(.invalidDownloadStatusCode, "", httpStatusCode: status)))
        }
        for status in [400, 401, 403, 404, 410, 501, 505] {
            #expect(!RetryPolicy.isRetryable(WebImageError(.invalidDownloadStatusCode, "", httpStatusCode: status)))
        }
        for code: WebImageError.Code in [.timedOut, .cannotConnect, .connectionLost] {
            #expect(RetryPolicy.isRetryable(WebImageError(code, "")))
        }
        for code: WebImageError.Code in [.cancelled, .forbiddenAddress, .badImageData, .responseTooLarge, .cannotFindHost,
                                         .invalidURL, .tooManyRedirects, .invalidDownloadContentType] {
            #expect(!RetryPolicy.isRetryable(WebImageError(code, "")))
        }
    }

    @Test("full jitter: the wait lies in 0…min(maxDelay, base·2ⁿ⁻¹); Retry-After is capped")
    func delays() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.5, maxDelay: 3, maxRetryAfter: 10)
        let top = { (range: ClosedRange<Double>) in range.upperBound }
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: top) == 0.5)
        #expect(policy.delay(beforeRetry: 2, retryAfter: nil, random: top) == 1)
        #expect(policy.delay(beforeRetry: 3, retryAfter: nil, random: top) == 2)
        #expect(policy.delay(beforeRetry: 4, retryAfter: nil, random: top) == 3)
        #expect(policy.delay(beforeRetry: 1000, retryAfter: nil, random: top) == 3)
        #expect(policy.delay(beforeRetry: 1, retryAfter: nil, random: { $0.lowerBound }) == 0)
        for _ in 0..<100 { #expect((0...2).contains(policy.delay(beforeRetry: 3, retryAfter: nil))) }
        #expect(policy.delay(beforeRetry: 1, retryAfter: 4) == 4)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 3600) == 10)
    }

    @Test("Retry-After: seconds and HTTP dates; garbage is ignored")
    func retryAfter() throws {
        let now = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(RetryPolicy.retryAfterSeconds("120", now: now) == 120)
        #expect(RetryPolicy.retryAfterSeconds(" 0 ", now: now) == 0)
        #expect(RetryPolicy.retryAfterSeconds("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == 30)
        #expect(RetryPolicy.retryAfterSeconds("Sunday, 06-Nov-94 08:50:37 GMT", now: now) == 60)
        #expect(RetryPolicy.retryAfterSeconds("Sun Nov  6 08:49:47 1994", now: now) == 10)
        #expect(RetryPolicy.retryAfterSeconds("Sat, 05 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(RetryPolicy.retryAfterSeconds("soon", now: now) == nil)
    }

    @Test("every value is clamped")
    func clamps() {
        var policy = RetryPolicy(maxAttempts: -3, baseDelay: .nan, maxDelay: .infinity, maxRetryAfter: -1, totalBudget: .infinity)
        #expect(policy.maxAttempts == 1)
        #expect(policy.baseDelay == 0.25)
        #expect(policy.maxDelay == 3600)
        #expect(policy.maxRetryAfter == 0)
        #expect(policy.totalBudget == 86_400)
        policy.maxAttempts = Int.max
        #expect(policy.maxAttempts == 100)
        policy.totalBudget = .nan
        #expect(policy.totalBudget == 60)
        #expect(RetryPolicy.retries(3).maxAttempts == 4)
        #expect(RetryPolicy.retries(-1).maxAttempts == 1)
        #expect(RetryPolicy.retries(Int.max).maxAttempts == 100)
    }
}
