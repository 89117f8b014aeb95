package narwhal.core.request;

import java.util.concurrent.CompletableFuture;
import narwhal.core.fleet.Reservation;
import narwhal.core.legs.DecodeCall;
import narwhal.spi.PrefillResult;
import org.jspecify.annotations.Nullable;

/**
 * The live legs of a request's current attempt and the phase reservations they hold, whatever the
 * handoff style. Confined to the request's scheduler; releasing and cancelling are idempotent, so
 * every path out may call them.
 */
final class AttemptLegs {

  @Nullable Reservation prefillReservation;
  @Nullable Reservation decodeReservation;
  @Nullable CompletableFuture<PrefillResult> prefillCall;
  @Nullable DecodeCall decodeCall;

  void releasePrefill() {
    release(prefillReservation);
  }

  void releaseDecode() {
    release(decodeReservation);
  }

  /** Stops the prefill leg, if one runs. Cleared first: cancelling completes the future. */
  void cancelPrefill() {
    CompletableFuture<PrefillResult> call = prefillCall;
    prefillCall = null;
    if (call != null) {
      call.cancel(false);
    }
  }

  void cancelDecode() {
    DecodeCall call = decodeCall;
    decodeCall = null;
    if (call != null) {
      call.cancel();
    }
  }

  /** Stops every leg and frees every reservation: the request is over. */
  void endAll() {
    cancelPrefill();
    cancelDecode();
    releasePrefill();
    releaseDecode();
  }

  private static void release(@Nullable Reservation r) {
    if (r != null) {
      r.release();
    }
  }
}
