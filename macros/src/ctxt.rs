//! Where every pass puts the problems it finds (serde_derive's `Ctxt`): all of them are reported
//! together, each at its span.

use std::fmt::Display;

use proc_macro2::Span;

/// Collected errors.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    pub(crate) fn error(&mut self, span: Span, message: impl Display) {
        self.errors.push(syn::Error::new(span, message));
    }

    pub(crate) fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    pub(crate) fn into_errors(self) -> Vec<syn::Error> {
        self.errors
    }
}
