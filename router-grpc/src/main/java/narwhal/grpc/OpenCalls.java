package narwhal.grpc;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The completion calls still open, so that shutting down can answer each one UNAVAILABLE (retry
 * elsewhere) instead of the transport's bare CANCELLED. Thread-safe.
 */
final class OpenCalls {

  private final Set<CompletionCall<?>> calls = ConcurrentHashMap.newKeySet();

  void add(CompletionCall<?> call) {
    calls.add(call);
  }

  void remove(CompletionCall<?> call) {
    calls.remove(call);
  }

  int size() {
    return calls.size();
  }

  /** Asks every open call to end with UNAVAILABLE; each does so on its own loop. */
  void shutDownAll() {
    for (CompletionCall<?> call : calls) {
      call.shutDown();
    }
  }
}
