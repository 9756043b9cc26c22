//! A guard around the whole service, so that every request gets an answer and
//! nothing ends the session:
//! - a panic while handling one message becomes an error response to that request
//!   (or a log line for a notification). tower-lsp polls handlers inside its own
//!   loop, so an escaped panic would otherwise end the session. Analyses also run
//!   under [`super::analysis::guarded`], which names the failing feature; this
//!   guard catches the rest (protocol translation, edits, dispatch);
//! - a request tower-lsp leaves unanswered (it drops unknown `$/` methods whether
//!   notification or request) gets MethodNotFound, as the protocol asks.

use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};
use tower_lsp::jsonrpc::{Error, Id, Request, Response};

pub struct Guard<S>(pub S);

type Answer<E> = Result<Option<Response>, E>;

impl<S> tower::Service<Request> for Guard<S>
where
    S: tower::Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Answer<S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let id = req.id().cloned();
        let method = req.method().to_string();
        match catch_unwind(AssertUnwindSafe(|| self.0.call(req))) {
            Ok(fut) => Box::pin(Guarded { fut: Box::pin(fut), id, method }),
            Err(p) => {
                let answer = panicked(id, &method, p);
                Box::pin(async move { Ok(answer) })
            }
        }
    }
}

struct Guarded<F> {
    fut: Pin<Box<F>>,
    id: Option<Id>,
    method: String,
}

impl<F, E> Future for Guarded<F>
where
    F: Future<Output = Answer<E>>,
{
    type Output = Answer<E>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        match catch_unwind(AssertUnwindSafe(|| this.fut.as_mut().poll(cx))) {
            Ok(Poll::Ready(Ok(None))) => {
                Poll::Ready(Ok(this.id.take().map(|id| Response::from_error(id, Error::method_not_found()))))
            }
            Ok(p) => p,
            Err(p) => Poll::Ready(Ok(panicked(this.id.take(), &this.method, p))),
        }
    }
}

/// The message a panic was raised with.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

fn panicked(id: Option<Id>, method: &str, payload: Box<dyn std::any::Any + Send>) -> Option<Response> {
    let msg = panic_message(&*payload);
    tracing::error!("panic while handling {method}: {msg}");
    let mut err = Error::internal_error();
    err.message = format!("internal error in {method}: {msg}").into();
    id.map(|id| Response::from_error(id, err))
}
