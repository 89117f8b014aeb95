/**
 * The OpenAI-compatible HTTP/1.1 front-end: {@code /v1/completions} and
 * {@code /v1/chat/completions} (JSON and SSE), {@code /v1/models}, {@code /health} and
 * {@code /ready}, served on Netty over a {@link narwhal.api.CompletionService}.
 */
@NullMarked
package narwhal.http;

import org.jspecify.annotations.NullMarked;
