//! Files in and out: reading a file the user picked (imports) and saving text as a file the user
//! downloads (exports).

use wasm_bindgen::{JsCast, JsValue};

/// The largest text file the page reads at once (run files, generations, templates, claims). It
/// is held twice while read (the browser's copy and the page's), in a 4 GB address space shared
/// with everything else the tab holds.
pub const MAX_TEXT_FILE_BYTES: f64 = 256e6;
/// The largest dataset file: read in slices, but its bytes are kept for the dataset shelf.
pub const MAX_DATASET_FILE_BYTES: f64 = 512e6;

/// Refuses a picked file larger than `limit` bytes, saying how large it is and what to do.
pub fn check_size(name: &str, size: f64, limit: f64) -> Result<(), String> {
    if size > limit {
        return Err(format!(
            "{name} is {:.0} MB: the page reads files of up to {:.0} MB at once (split it, or use the command line, which has no such limit)",
            size / 1e6,
            limit / 1e6
        ));
    }
    Ok(())
}

/// Reads a file the user picked as text (refused above [`MAX_TEXT_FILE_BYTES`]).
pub async fn read_file_text(file: &web_sys::File) -> Result<String, String> {
    let name = file.name();
    check_size(&name, file.size(), MAX_TEXT_FILE_BYTES)?;
    let value =
        wasm_bindgen_futures::JsFuture::from(file.text()).await.map_err(|e| format!("could not read {name}: {e:?}"))?;
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

/// Downloads an SVG drawing as a PNG: drawn at twice its size on a white canvas (text drawn in
/// `currentColor` comes out black, as on paper). A failure is silent, like a cancelled download.
pub fn download_svg_as_png(file_name: String, svg: String) {
    leptos::task::spawn_local(async move {
        let _ = svg_to_png(&file_name, &svg).await;
    });
}

async fn svg_to_png(file_name: &str, svg: &str) -> Result<(), JsValue> {
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let image = web_sys::HtmlImageElement::new()?;
    let loaded = js_sys::Promise::new(&mut |resolve, reject| {
        image.set_onload(Some(&resolve));
        image.set_onerror(Some(&reject));
    });
    let url = format!("data:image/svg+xml;charset=utf-8,{}", String::from(js_sys::encode_uri_component(svg)));
    image.set_src(&url);
    wasm_bindgen_futures::JsFuture::from(loaded).await?;
    let (width, height) = (image.natural_width().max(1) * 2, image.natural_height().max(1) * 2);
    let canvas: web_sys::HtmlCanvasElement = document.create_element("canvas")?.unchecked_into();
    canvas.set_width(width);
    canvas.set_height(height);
    let context: web_sys::CanvasRenderingContext2d = canvas.get_context("2d")?.ok_or("no 2d context")?.unchecked_into();
    context.set_fill_style_str("#ffffff");
    context.fill_rect(0.0, 0.0, width as f64, height as f64);
    context.draw_image_with_html_image_element_and_dw_and_dh(&image, 0.0, 0.0, width as f64, height as f64)?;
    let data_url = canvas.to_data_url_with_type("image/png")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a")?.unchecked_into();
    a.set_href(&data_url);
    a.set_download(file_name);
    a.click();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picked_file_over_the_limit_is_refused_with_its_size() {
        let cases = [
            (10.0, 256e6, None),
            (256e6, 256e6, None),
            (300e6, 256e6, Some("big.jsonl is 300 MB: the page reads files of up to 256 MB at once")),
            (2e9, 512e6, Some("big.jsonl is 2000 MB: the page reads files of up to 512 MB at once")),
        ];
        for (size, limit, want) in cases {
            let got = check_size("big.jsonl", size, limit).err();
            assert_eq!(got.as_deref().map(|e| e.split(" (").next().unwrap()), want, "{size}");
        }
    }
}
