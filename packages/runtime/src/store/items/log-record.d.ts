/**
 * `SESSION#<id>` / `LOG#<seq>`, seq zero-padded. A record over
 * `OFFLOAD_BYTES` is stored whole in S3 (`objectKey`) and the item keeps
 * `v`, `seq`, `at`, `run_id`, `kind` and `offload`, the object's key.
 */
export declare const logRecordKey: (sessionId: string, seq: number) => {
    pk: string;
    sk: string;
};
export declare const logRecordObjectKey: (sessionId: string, seq: number) => string;
/** The whole log after `afterSeq`: a sort-key range. */
export declare const logRange: (afterSeq?: number) => [string, string];
export declare const logPrefix: string;
/** The schema and its types stand with the loop's records in @zero/agent; the store keeps the key and the version wrapper. */
export { RECORD_VERSION, logRecordSchema, type LogRecord, type LogRecordKind, type NewLogRecord } from '@zero/agent/records/log-record';
/**
 * Versions: 1 (every record so far; kinds were added over time, none
 * changed). A version 2 joins here with a transform that upgrades 1.
 */
export declare const logRecordItem: import("../stored-item").StoredItem<{
    kind: "user_message";
    text: string;
    agent_id: string;
    model: string;
    voice_mode: "full" | "minimal" | "neutral";
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    message_id?: number | undefined;
    author?: {
        id: string;
        name?: string | undefined;
    } | undefined;
    client_tools?: {
        name: string;
        description: string;
        input_schema: {
            [x: string]: unknown;
            type: "object";
        };
        replaces?: string | undefined;
    }[] | undefined;
    thinking_budget?: number | undefined;
    plan_steps?: string[] | undefined;
    max_tool_iterations?: number | undefined;
    routed_tools?: string[] | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "assistant";
    step: number;
    agent_id: string;
    content: {
        [x: string]: unknown;
        type: string;
    }[];
    usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cost_usd: number;
        cost_known?: false | undefined;
    };
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    model?: string | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "tool_results";
    step: number;
    results: {
        type: "tool_result";
        tool_use_id: string;
        content: string;
        is_error?: boolean | undefined;
    }[];
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    parent_run_id?: string | undefined;
} | {
    kind: "run_end";
    status: "error" | "budget_reached" | "completed" | "limit" | "cancelled";
    steps: number;
    usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cost_usd: number;
        cost_known?: false | undefined;
    };
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    reason?: string | undefined;
    error?: {
        code: string;
        message: string;
    } | undefined;
    budget?: "session" | "user" | "deployment" | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "tool_result";
    step: number;
    tool_use_id: string;
    name: string;
    content: string;
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    is_error?: boolean | undefined;
    images?: {
        media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
        data: string;
    }[] | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "run_handover";
    steps: number;
    usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cost_usd: number;
        cost_known?: false | undefined;
    };
    reason: string;
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    parent_run_id?: string | undefined;
} | {
    kind: "approval_request";
    tool_use_id: string;
    name: string;
    input: unknown;
    policy: string;
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    client_tool?: true | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "run_wait";
    steps: number;
    usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cost_usd: number;
        cost_known?: false | undefined;
    };
    pending: string[];
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    parent_run_id?: string | undefined;
} | {
    kind: "approval";
    tool_use_id: string;
    decision: "allow" | "deny";
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    message?: string | undefined;
    by?: {
        id: string;
        name?: string | undefined;
    } | undefined;
    reason?: "expired" | "interrupted" | undefined;
    result?: {
        content: string;
        is_error?: boolean | undefined;
        truncated?: boolean | undefined;
    } | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "command";
    tool_use_id: string;
    project_id: string;
    started_at: string;
    cwd: string;
    argv: string[];
    exit_code: number | null;
    duration_ms: number;
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    signal?: string | undefined;
    timed_out?: boolean | undefined;
    parent_run_id?: string | undefined;
} | {
    kind: "void";
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    parent_run_id?: string | undefined;
} | {
    kind: "compaction";
    through_run_id: string;
    turns_folded: number;
    summary: string;
    tokens_before: number;
    tokens_after: number;
    usage: {
        input_tokens: number;
        output_tokens: number;
        cache_read_input_tokens: number;
        cache_creation_input_tokens: number;
        cost_usd: number;
        cost_known?: false | undefined;
    };
    v: 1;
    seq: number;
    at: string;
    run_id: string;
    parent_run_id?: string | undefined;
}>;
