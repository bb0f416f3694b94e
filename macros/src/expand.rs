//! Code generation: the `ForgeComponent` impl and its automatic registration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::parse::Input;

/// The impl for a checked input.
pub(crate) fn expand(input: &Input) -> TokenStream {
    let ident = input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let type_path = match &input.type_path {
        Some(path) => quote!(::std::string::String::from(#path)),
        None => quote!(::std::string::String::from(
            <Self as ::bevy_forge_scene::__private::TypePath>::type_path()
        )),
    };
    let docs = &input.docs;
    let old_paths = &input.renamed_from;
    let mut fields = Vec::new();
    let mut skipped = Vec::new();
    for field in &input.fields {
        let name = crate::check::member_name(&field.member);
        if field.skip.is_some() {
            skipped.push(name);
            continue;
        }
        let member = &field.member;
        let ty = field.ty;
        let required = field.required.is_some();
        let range = match &field.range {
            Some(r) => {
                let (min, max, inclusive) = (r.min, r.max, r.inclusive);
                quote!(::core::option::Option::Some(
                    ::bevy_forge_scene::__private::FieldRange { min: #min, max: #max, inclusive: #inclusive }
                ))
            }
            None => quote!(::core::option::Option::None),
        };
        let field_docs = &field.docs;
        let old_names = &field.renamed_from;
        fields.push(quote! {
            {
                let mut __field = ::bevy_forge_scene::__private::FieldSchema::of::<#ty>(
                    #name, &__default.#member, #required, #range, #field_docs,
                );
                __field.renamed_from = ::std::vec![#(::std::string::String::from(#old_names)),*];
                __field
            }
        });
    }
    // Generic types cannot submit themselves: each instantiation registers by hand.
    let submit = if input.generics.params.is_empty() {
        quote! {
            ::bevy_forge_scene::__private::inventory::submit! {
                ::bevy_forge_scene::__private::ForgeComponentRegistration::of::<#ident>()
            }
        }
    } else {
        quote!()
    };
    // The impl is spanned at the type name, so a missing `Component`, `Reflect` or `Default`
    // is reported there.
    let trait_path = quote_spanned!(ident.span()=> ::bevy_forge_scene::__private::ForgeComponent);
    let old_paths = quote!(::std::vec![#(::std::string::String::from(#old_paths)),*]);
    let schema = match &input.variants {
        // An enum: its variants come from reflection, its old variant names from the attributes.
        Some(variants) => {
            let renamed = variants.iter().flat_map(|v| {
                let now = v.ident.to_string();
                v.renamed_from.iter().map(move |old| quote!((#old, #now)))
            });
            quote! {
                ::bevy_forge_scene::__private::ComponentSchema::of_enum::<Self>(
                    #type_path, #docs, #old_paths, &[#(#renamed),*],
                )
            }
        }
        None => quote! {
            let __default = <Self as ::core::default::Default>::default();
            ::bevy_forge_scene::__private::ComponentSchema {
                type_path: #type_path,
                type_name: ::std::string::String::from(::core::stringify!(#ident)),
                docs: ::std::string::String::from(#docs),
                fields: ::std::vec![#(#fields),*],
                skipped: ::std::vec![#(::std::string::String::from(#skipped)),*],
                renamed_from: #old_paths,
                variants: ::std::vec::Vec::new(),
                default: ::core::option::Option::None,
                renamed_variants: ::std::vec::Vec::new(),
            }
        },
    };
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics #trait_path for #ident #ty_generics #where_clause {
                fn schema() -> ::bevy_forge_scene::__private::ComponentSchema {
                    #schema
                }

                fn copy_for_spawn(&self) -> ::core::option::Option<Self> {
                    #[allow(unused_imports)]
                    use ::bevy_forge_scene::__private::{CopyByClone as _, CopyByReflection as _};
                    (&::bevy_forge_scene::__private::CopyProbe(self)).probe_copy()
                }
            }
            #submit
        };
    }
}

/// What is emitted next to errors (thiserror's fallback): the trait impl with a body that never
/// runs (the crate does not compile), so uses of the type as a `ForgeComponent` elsewhere do not
/// add errors of their own.
pub(crate) fn stub(input: &syn::DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            #[automatically_derived]
            impl #impl_generics ::bevy_forge_scene::__private::ForgeComponent for #ident #ty_generics #where_clause {
                fn schema() -> ::bevy_forge_scene::__private::ComponentSchema {
                    ::core::unimplemented!("#[derive(ForgeComponent)] failed")
                }
            }
        };
    }
}
