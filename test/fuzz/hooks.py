# Fuzzer hooks for the API fuzzing test (test/integration/api-fuzzing.test.ts).
import uuid

import schemathesis


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    # An Idempotency-Key names one intended operation: reused with another body it is rightly refused (422
    # idempotency_key_reused), which a generator of valid-looking keys cannot know. Each request gets its own.
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
