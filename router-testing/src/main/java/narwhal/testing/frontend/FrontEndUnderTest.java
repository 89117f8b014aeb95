package narwhal.testing.frontend;

import java.time.Duration;
import narwhal.api.FrontEnd;
import org.jspecify.annotations.Nullable;

/**
 * One front-end started over a {@link narwhal.testing.ScriptedCompletionService}, and a client of
 * its own protocol that speaks for the suite: each answer is read back into protocol-neutral
 * terms ({@link Answer}). Implemented once per front-end, in that front-end's tests.
 */
public interface FrontEndUnderTest extends AutoCloseable {

  /** The front-end's journal name, which every arrival it makes must carry. */
  FrontEnd frontEnd();

  /** Whether its protocol carries a deadline of the client's own (gRPC does, HTTP does not). */
  boolean carriesClientDeadline();

  /** The largest request it accepts (its {@code serving.max_request_bytes}). */
  long maxRequestBytes();

  /** Sends {@code request} and waits for the whole answer (a stream read to its end). */
  Answer send(Request request) throws Exception;

  /**
   * Sends a streaming {@code request}, waits for its first token, then goes away (closes the
   * connection or cancels the call) without reading the rest.
   */
  void sendAndLeaveAfterFirstToken(Request request) throws Exception;

  /**
   * Sends the start of {@code request} (HTTP: the headers; gRPC: the call's start, with its
   * metadata), and nothing more until {@link Partial#finish()}.
   */
  Partial begin(Request request) throws Exception;

  /** A request whose body or message has not been sent yet. */
  interface Partial extends AutoCloseable {
    /** Sends the rest and waits for the answer. */
    Answer finish() throws Exception;
  }

  /**
   * A completion request as the suite describes it; each front-end's client writes it in its own
   * protocol (an OpenAI JSON body, a {@code CompletionRequest} message).
   *
   * @param prompt the prompt text, or null to leave it out (an invalid request on either protocol)
   * @param model the model the request names, or null for none
   * @param stream whether the client reads a stream
   * @param authorization the credentials to send, or null
   * @param clientRequestId the client's {@code x-request-id}, or null
   * @param traceparent a W3C {@code traceparent} to send, or null
   * @param deadline a deadline of the client's own, where the protocol has one, or null
   */
  record Request(@Nullable String prompt, @Nullable String model, boolean stream, @Nullable String authorization,
      @Nullable String clientRequestId, @Nullable String traceparent, @Nullable Duration deadline) {

    /** A completion of {@code prompt} (8 tokens at most), streamed or whole. */
    public static Request completion(String prompt, boolean stream) {
      return new Request(prompt, null, stream, null, null, null, null);
    }

    public Request withoutPrompt() {
      return new Request(null, model, stream, authorization, clientRequestId, traceparent, deadline);
    }

    public Request withModel(String value) {
      return new Request(prompt, value, stream, authorization, clientRequestId, traceparent, deadline);
    }

    public Request withAuthorization(String value) {
      return new Request(prompt, model, stream, value, clientRequestId, traceparent, deadline);
    }

    public Request withClientRequestId(String value) {
      return new Request(prompt, model, stream, authorization, value, traceparent, deadline);
    }

    public Request withTraceparent(String value) {
      return new Request(prompt, model, stream, authorization, clientRequestId, value, deadline);
    }

    public Request withDeadline(Duration value) {
      return new Request(prompt, model, stream, authorization, clientRequestId, traceparent, value);
    }
  }

  /**
   * What the client got, in the terms both protocols share.
   *
   * @param status the HTTP status (gRPC: the {@code narwhal-http-status} trailer, 200 on OK)
   * @param text the generated text, in order (streamed tokens joined, or the whole answer's)
   * @param committed whether output reached the client before the end
   * @param completed whether it ended as a success
   * @param errorMessage the error's message (the envelope's, or the status description), or null
   * @param requestId the router's id for the request ({@code x-request-id}), or null
   * @param challenged whether a 401 carried the {@code WWW-Authenticate} challenge
   */
  record Answer(int status, String text, boolean committed, boolean completed, @Nullable String errorMessage,
      @Nullable String requestId, boolean challenged) {}
}
