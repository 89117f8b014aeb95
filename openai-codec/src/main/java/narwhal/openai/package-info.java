/**
 * The OpenAI wire format as the router reads it: request bodies of {@code /v1/completions} and
 * {@code /v1/chat/completions} mapped onto {@link narwhal.proto.v1.CompletionRequest} and back.
 */
@NullMarked
package narwhal.openai;

import org.jspecify.annotations.NullMarked;
