//! Files in and out: reading a file the user picked (imports) and saving text as a file the user
//! downloads (exports).

use wasm_bindgen::JsCast;

/// Reads a file the user picked as text.
pub async fn read_file_text(file: &web_sys::File) -> Result<String, String> {
    let name = file.name();
    let value = wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|e| format!("could not read {name}: {e:?}"))?;
    value.as_string().ok_or(format!("could not read {name}: not text"))
}

pub fn download_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&text.into());
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(|e| format!("{e:?}"))?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(|e| format!("{e:?}"))?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(|e| format!("{e:?}"))?.unchecked_into();
    a.set_href(&url);
    a.set_download(file_name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}
