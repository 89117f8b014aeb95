package narwhal.testing.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import narwhal.api.AuthErrors;
import narwhal.api.Authentication;
import narwhal.api.Caller;
import narwhal.api.ClientAuthenticator;
import narwhal.api.RouterError;
import narwhal.testing.Poll;
import narwhal.testing.ScriptedCompletionService;
import narwhal.testing.ScriptedCompletionService.Call;
import narwhal.testing.ScriptedCompletionService.Ticket;
import narwhal.testing.frontend.FrontEndUnderTest.Answer;
import narwhal.testing.frontend.FrontEndUnderTest.Request;
import narwhal.time.Deadline;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every front-end does the same way, whatever its protocol: the contract with the core
 * ({@code admit(Arrival)} then {@code submit(ticket, request, sink)}), checked over real sockets
 * against a scripted core ({@link ScriptedCompletionService}). A front-end's tests subclass it and
 * say how to start the front-end and speak its protocol ({@link FrontEndUnderTest}), as an engine
 * adapter's tests subclass the adapter conformance kit and grpc-java's transports subclass its
 * {@code AbstractTransportTest}.
 *
 * <p>Covered: admission order (authentication, then admission, before the request is read), the
 * arrival each front-end makes, deadlines, cancellation, authentication, request limits, the
 * mapping of the core's errors to the client, and whole and streamed answers.
 */
public abstract class FrontEndConformanceSuite {

  /** A tenant's key the suite's authenticator knows. */
  protected static final String KEY = "Bearer conformance-key";

  protected final ScriptedCompletionService service = new ScriptedCompletionService();
  private @Nullable FrontEndUnderTest frontEnd;

  /** Starts the front-end over {@code service} on an ephemeral loopback port. */
  protected abstract FrontEndUnderTest start(ScriptedCompletionService service) throws Exception;

  @BeforeEach
  final void startFrontEnd() throws Exception {
    frontEnd = start(service);
  }

  @AfterEach
  final void stopFrontEnd() throws Exception {
    if (frontEnd != null) {
      frontEnd.close();
    }
  }

  protected final FrontEndUnderTest frontEnd() {
    if (frontEnd == null) {
      throw new IllegalStateException("not started");
    }
    return frontEnd;
  }

  private static void streams(Call call, String... tokens) {
    var events = new narwhal.proto.v1.StreamEvent[tokens.length + 1];
    for (int i = 0; i < tokens.length; i++) {
      events[i] = ScriptedCompletionService.token(tokens[i]);
    }
    events[tokens.length] = ScriptedCompletionService.finish("stop", 3, tokens.length);
    call.stream(events);
  }

  // ---- answers ----

  @Test
  void aWholeAnswer_isTheTokensInOrder_underTheRoutersRequestId() throws Exception {
    service.script(call -> streams(call, "Hello", " world"));

    Answer a = frontEnd().send(Request.completion("hi", false));

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.completed()).isTrue();
    assertThat(a.text()).isEqualTo("Hello world");
    assertThat(a.requestId()).isEqualTo(service.onlyCall().handle.requestId());
  }

  @Test
  void aStreamedAnswer_relaysEveryToken_thenCompletes() throws Exception {
    service.script(call -> streams(call, "a", "b", "c"));

    Answer a = frontEnd().send(Request.completion("hi", true));

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.committed()).isTrue();
    assertThat(a.completed()).isTrue();
    assertThat(a.text()).isEqualTo("abc");
  }

  // ---- errors ----

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {400, 403, 404, 429, 502, 503, 504})
  void anErrorBeforeOutput_reachesTheClientWithItsStatusAndMessage(int status) throws Exception {
    RouterError error = RouterError.of(status, "decode", "engine_error", "the core says " + status);
    service.script(call -> call.after(1, () -> call.sink.onError(error)));

    Answer a = frontEnd().send(Request.completion("hi", true));

    assertThat(a.status()).isEqualTo(status);
    assertThat(a.committed()).isFalse();
    assertThat(a.completed()).isFalse();
    assertThat(a.errorMessage()).contains("the core says " + status);
  }

  @Test
  void aFailureAfterOutput_endsTheCommittedStream_neverAsASuccess() throws Exception {
    service.script(call -> call.sequence(1,
        () -> call.sink.onStart(call.start()),
        () -> call.deliver(ScriptedCompletionService.token("partial")),
        () -> call.sink.onError(RouterError.of(502, "decode", "engine_connection", "decode engine d0 went away"))));

    Answer a = frontEnd().send(Request.completion("hi", true));

    assertThat(a.committed()).isTrue();
    assertThat(a.completed()).isFalse();
    assertThat(a.text()).isEqualTo("partial");
    assertThat(a.errorMessage()).contains("decode engine d0 went away");
  }

  // ---- admission order ----

  @Test
  void admissionComesBeforeTheRequestIsRead_soAnOverloadedRouterRefusesEvenAnInvalidOne() throws Exception {
    service.refuseAdmission(RouterError.of(429, "server_overloaded_error", null, "router in-flight limit reached")
        .withRetryAfter(1));

    Answer a = frontEnd().send(Request.completion("hi", true).withoutPrompt());

    assertThat(a.status()).isEqualTo(429);
    assertThat(a.errorMessage()).contains("router in-flight limit reached");
    Ticket ticket = service.tickets.poll(10, TimeUnit.SECONDS);
    assertThat(ticket).isNotNull();
    assertThat(ticket.refusal()).isNotNull();
    assertThat(a.requestId()).isEqualTo(ticket.requestId());
    assertThat(service.calls).isEmpty();
  }

  @Test
  void aRequestIsAdmittedOnItsStart_beforeItsBodyOrMessageArrives() throws Exception {
    service.script(call -> streams(call, "ok"));

    try (FrontEndUnderTest.Partial partial = frontEnd().begin(Request.completion("hi", true))) {
      Poll.until("admitted before the request was sent", Duration.ofSeconds(10), () -> service.tickets.size() == 1);
      assertThat(service.calls).isEmpty();

      Answer a = partial.finish();

      assertThat(a.status()).isEqualTo(200);
      assertThat(a.text()).isEqualTo("ok");
    }
    assertThat(service.onlyCall().arrival).isSameAs(service.tickets.peek().arrival());
  }

  // ---- authentication ----

  @Test
  void anUnknownCaller_gets401WithTheChallenge_isRecorded_andNeverAdmitted() throws Exception {
    service.authenticator(new KeyCheck());

    Answer a = frontEnd().send(Request.completion("hi", true).withAuthorization("Bearer wrong"));

    assertThat(a.status()).isEqualTo(401);
    assertThat(a.challenged()).isTrue();
    assertThat(service.unauthenticated).containsExactly(AuthErrors.unknown().message());
    assertThat(service.tickets).isEmpty();
    assertThat(service.calls).isEmpty();
  }

  @Test
  void aKnownCaller_travelsOnTheArrival() throws Exception {
    service.authenticator(new KeyCheck());
    service.script(call -> streams(call, "ok"));

    Answer a = frontEnd().send(Request.completion("hi", true).withAuthorization(KEY));

    assertThat(a.status()).isEqualTo(200);
    assertThat(service.onlyCall().arrival.caller()).isEqualTo(Caller.tenant("conformance"));
  }

  // ---- what the arrival carries ----

  @Test
  void theArrival_namesTheFrontEnd_theClientsRequestId_andTheTraceContext() throws Exception {
    service.script(call -> streams(call, "ok"));
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    frontEnd().send(Request.completion("hi", true).withClientRequestId("client-7").withTraceparent(traceparent));

    Call call = service.onlyCall();
    assertThat(call.arrival.frontEnd()).isEqualTo(frontEnd().frontEnd());
    assertThat(call.arrival.clientRequestId()).isEqualTo("client-7");
    assertThat(call.arrival.trace().traceparent()).isEqualTo(traceparent);
    // The core applies it to the request it runs.
    assertThat(call.request.getTraceparent()).isEqualTo(traceparent);
  }

  // ---- deadlines ----

  @Test
  void theTicketCarriesTheRequestsDeadline_theEarlierOfTheClientsAndTheRouters() throws Exception {
    service.requestTimeout(Duration.ofSeconds(60));
    service.script(call -> streams(call, "ok"));

    frontEnd().send(Request.completion("hi", true).withDeadline(Duration.ofSeconds(20)));

    Call call = service.onlyCall();
    long remainingAtArrival = call.deadline.atNanos() - call.arrivalNanos;
    if (frontEnd().carriesClientDeadline()) {
      assertThat(call.deadline.bound()).isEqualTo(Deadline.Bound.CLIENT);
      assertThat(remainingAtArrival).isBetween(TimeUnit.SECONDS.toNanos(15), TimeUnit.SECONDS.toNanos(20));
    } else {
      assertThat(call.deadline.bound()).isEqualTo(Deadline.Bound.REQUEST_TIMEOUT);
      assertThat(remainingAtArrival).isEqualTo(TimeUnit.SECONDS.toNanos(60));
    }
  }

  // ---- limits and invalid input: the ticket ends, once, and nothing is submitted ----

  @Test
  void aRequestOverTheSizeLimit_is413_andEndsItsTicketInvalid() throws Exception {
    Answer a = frontEnd().send(Request.completion("x".repeat((int) frontEnd().maxRequestBytes() + 1), true));

    assertThat(a.status()).isEqualTo(413);
    assertOnlyTicketEnded("invalid:413");
  }

  @Test
  void anInvalidRequest_is400_andEndsItsTicketInvalid() throws Exception {
    Answer a = frontEnd().send(Request.completion("hi", true).withoutPrompt());

    assertThat(a.status()).isEqualTo(400);
    assertThat(a.errorMessage()).contains("'prompt' is required");
    assertOnlyTicketEnded("invalid:400");
  }

  @Test
  void anotherModel_is404_fromTheCore() throws Exception {
    Answer a = frontEnd().send(Request.completion("hi", true).withModel("not-served"));

    assertThat(a.status()).isEqualTo(404);
    assertThat(a.errorMessage()).contains("not-served");
    assertOnlyTicketEnded("invalid:404");
  }

  private void assertOnlyTicketEnded(String ending) throws InterruptedException {
    Ticket ticket = service.tickets.poll(10, TimeUnit.SECONDS);
    assertThat(ticket).isNotNull();
    Poll.until("the ticket ended", Duration.ofSeconds(10), () -> !ticket.endings.isEmpty());
    assertThat(ticket.endings).containsExactly(ending);
    assertThat(service.calls).isEmpty();
  }

  // ---- cancellation ----

  @Test
  void aClientLeavingMidStream_cancelsTheRequestOnce() throws Exception {
    service.script(call -> {
      call.sink.onStart(call.start());
      call.deliver(ScriptedCompletionService.token("first"));
      // ... and never more: the client leaves.
    });

    frontEnd().sendAndLeaveAfterFirstToken(Request.completion("hi", true));

    Call call = service.nextCall();
    Poll.until("the request cancelled", Duration.ofSeconds(10), () -> call.handle.cancels.get() > 0);
    assertThat(call.handle.cancels.get()).isEqualTo(1);
    assertThat(call.handle.aborts).isEmpty();
  }

  /** Knows one key, {@link #KEY}, of the tenant "conformance". */
  private static final class KeyCheck implements ClientAuthenticator {
    @Override
    public boolean required() {
      return true;
    }

    @Override
    public Authentication authenticate(List<String> authorization) {
      if (authorization.size() > 1) {
        return Authentication.refused(AuthErrors.ambiguous(authorization.size()), "ambiguous");
      }
      if (authorization.isEmpty()) {
        return Authentication.refused(AuthErrors.missing(), "missing");
      }
      return KEY.equals(authorization.get(0)) ? Authentication.accepted(Caller.tenant("conformance"))
          : Authentication.refused(AuthErrors.unknown(), "unknown");
    }

    @Override
    public Authentication authenticateOperator(List<String> authorization) {
      return authenticate(authorization);
    }
  }
}
