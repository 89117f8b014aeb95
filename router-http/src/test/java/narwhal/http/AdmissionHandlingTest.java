package narwhal.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import narwhal.api.RouterError;
import narwhal.testing.ScriptedCompletionService.Ticket;
import org.junit.jupiter.api.Test;

/**
 * HTTP's side of admission beyond the front-end conformance suite (which checks, for both
 * front-ends, that a ticket is taken before the request is read and that a refused, invalid, too
 * large or other-model request ends its ticket once): the connection after a refusal, and a client
 * gone mid-body.
 */
class AdmissionHandlingTest extends FrontEndTestSupport {

  private static final RouterError OVERLOADED = RouterError.of(429, "server_overloaded_error", null,
      "router in-flight limit reached").withRetryAfter(1);

  private Ticket nextTicket() throws InterruptedException {
    Ticket t = service.tickets.poll(10, TimeUnit.SECONDS);
    if (t == null) {
      throw new AssertionError("no ticket was taken");
    }
    return t;
  }

  @Test
  void refusal_isAnsweredOnTheHeaders_andTheConnectionServesTheNextRequest() throws Exception {
    service.refuseAdmission(OVERLOADED);
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      String body = "{\"prompt\": \"x\"}";
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length() + "\r\n\r\n");

      RawHttpConnection.Response refused = http.readResponse();

      assertThat(refused.status()).isEqualTo(429);
      assertThat(refused.headers()).containsEntry("retry-after", "1");
      assertThat(refused.headers().get("x-request-id")).isEqualTo(nextTicket().requestId());
      assertThat(json(refused.body()).path("error").path("type").asText()).isEqualTo("server_overloaded_error");
      // The body that follows is skipped, and the connection stays usable.
      service.refuseAdmission(null);
      service.script(call -> call.stream(Events.completionFinal("hi", "stop", "null")));
      http.send(body);
      http.post("/v1/completions", "{\"prompt\": \"x\"}");
      assertThat(http.readResponse().status()).isEqualTo(200);
    }
    assertThat(service.pendingCalls()).isEqualTo(1);
  }

  @Test
  void clientGoneMidBody_abandonsTheTicketOnce() throws Exception {
    Ticket ticket;
    try (RawHttpConnection http = new RawHttpConnection(frontEnd.port())) {
      http.send("POST /v1/completions HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{\"prompt\"");
      ticket = nextTicket();
    }

    await("the ticket to be abandoned", () -> !ticket.endings.isEmpty());
    assertThat(ticket.endings).containsExactly("abandon");
    assertThat(service.pendingCalls()).isZero();
  }
}
