package narwhal.adapters.kit;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import narwhal.api.ClientSink;
import narwhal.api.ResponseStart;
import narwhal.api.RouterError;
import narwhal.proto.v1.StreamEvent;
import org.jspecify.annotations.Nullable;

/**
 * The client of one request: records every call the core makes, and checks the {@link ClientSink}
 * call order as it goes (a violation is kept and reported by {@link ClientOutcome}).
 */
final class ContractCheckingSink implements ClientSink {

  private final List<String> log = new ArrayList<>();
  private final List<String> tokens = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private @Nullable RouterError error;
  private boolean started;
  private boolean ended;
  final CompletableFuture<Void> terminal = new CompletableFuture<>();

  @Override
  public synchronized void onStart(ResponseStart start) {
    check(!started, "onStart twice");
    started = true;
    log.add("start");
  }

  @Override
  public synchronized void onEvent(StreamEvent event) {
    check(started, "an event before onStart");
    if (event.hasToken()) {
      tokens.add(event.getToken().getText());
      log.add("token");
    } else {
      log.add(event.getKindCase().name().toLowerCase(java.util.Locale.ROOT));
    }
  }

  @Override
  public synchronized void onComplete() {
    check(started, "onComplete before onStart");
    log.add("complete");
    end();
  }

  @Override
  public synchronized void onError(RouterError e) {
    error = e;
    log.add("error " + e.status());
    end();
  }

  @Override
  public boolean isWritable() {
    return true;
  }

  synchronized int tokenCount() {
    return tokens.size();
  }

  synchronized ClientOutcome outcome() {
    return new ClientOutcome(List.copyOf(tokens), started, log.contains("complete"), error, List.copyOf(log),
        List.copyOf(violations));
  }

  private void end() {
    check(!ended, "a second terminal call");
    ended = true;
    terminal.complete(null);
  }

  private void check(boolean ok, String violation) {
    if (!ok) {
      violations.add(violation + " (calls so far: " + log + ")");
    }
  }
}
