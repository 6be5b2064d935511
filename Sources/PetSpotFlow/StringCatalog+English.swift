import PetSpotViews

extension StringCatalog {
    public static let english = StringCatalog(
        step: { step in
            switch step {
            case .chip:
                StepCopy(
                    title: "Microchip number",
                    heading: "Microchip number",
                    text: "Microchip identification is the most efficient way to reunite with your pet. "
                        + "If your pet has been microchipped and you know the microchip number, please enter it here.")
            case .photo:
                StepCopy(
                    title: "Animal photo",
                    heading: "Animal photo",
                    text: "A clear, recent photo helps others recognise your pet.")
            case .description:
                StepCopy(
                    title: "Animal description",
                    heading: "Animal description",
                    text: "Tell us when your pet went missing and how to recognise it.")
            case .contact:
                StepCopy(
                    title: "Contact details",
                    heading: "Contact details",
                    text: "How can someone who finds your pet reach you? Enter a phone number, an email address or both.")
            case .summary:
                StepCopy(
                    title: "Summary",
                    heading: "Check your report",
                    text: "Check the details below. To change something, go back; when everything is right, submit the report.")
            }
        },
        label: { field in
            switch field {
            case .chipNumber: "Microchip number"
            case .photo: "Animal photo"
            case .disappearanceDate: "Date of disappearance"
            case .species: "Animal species"
            case .race: "Animal race"
            case .gender: "Gender"
            case .age: "Animal age"
            case .latitude: "Latitude"
            case .longitude: "Longitude"
            case .additionalDescription: "Animal additional description"
            case .contactPhone: "Phone number"
            case .contactEmail: "Email address"
            }
        },
        optionalLabel: { "\($0) (optional)" },
        placeholder: { field in
            switch field {
            case .chipNumber: "00000-00000-00000"
            case .photo: "No photo added"
            case .disappearanceDate: "YYYY-MM-DD"
            case .species, .gender: "Select an option"
            case .race: "e.g. Labrador"
            case .age: "Years, 0–40"
            case .latitude: "e.g. 52.22977"
            case .longitude: "e.g. 21.01178"
            case .additionalDescription: "Colour, collar, distinctive marks…"
            case .contactPhone: "+48 123 456 789"
            case .contactEmail: "name@example.com"
            }
        },
        notProvided: "Not provided",
        toast: "Some information must be corrected",
        gender: { gender in
            switch gender {
            case .female: "Female"
            case .male: "Male"
            }
        },
        years: { $0 == 1 ? "1 year" : "\($0) years" },
        date: { date in
            let months = [
                "January", "February", "March", "April", "May", "June",
                "July", "August", "September", "October", "November", "December",
            ]
            return "\(date.day) \(months[date.month - 1]) \(date.year)"
        },
        decimalSeparator: ".",
        photoSummary: { mediaType, size in "\(mediaType), \(size)" },
        chipHint: { hint in
            switch hint {
            case .countryCode(let code):
                "The first three digits, \(code), are an ISO 3166 numeric country code."
            case .manufacturerCode(let code):
                "The first three digits, \(code), are a manufacturer code."
            case .testTransponder:
                "The first three digits, 999, mark a test transponder, not an animal's chip."
            case .unassignedCode:
                "The first three digits, 000, are not assigned to any country or manufacturer."
            case .nationalIDTooLarge:
                "The last 12 digits are larger than 274877906943, the largest national ID an ISO 11784 chip can carry. "
                    + "Please check the number."
            case .shorterThanISO:
                "ISO chips have 15 digits; older chips with 9 or 10 digits also exist."
            }
        },
        photoFormats: { limit in "JPEG, PNG, WebP or HEIC, up to \(limit)." },
        photoDetails: { sha256, filename in
            filename.map { "\($0), SHA-256 \(sha256)" } ?? "SHA-256 \(sha256)"
        },
        noOtherLocationDetails: "No other location details are collected on this step.",
        locationFound: { source in "GPS position found and filled in (source: \(source))." },
        locationTimedOut: "No GPS position came in time. Request it again, type the coordinates, or leave them empty.",
        locationUnavailable:
            "The GPS position is not available right now. Try again later, type the coordinates, or leave them empty.",
        issue: { issue in
            switch issue {
            case .required(.disappearanceDate): "Enter the date of disappearance."
            case .required(.species): "Select the species."
            case .required(.race): "Enter the race."
            case .required(.gender): "Select the gender."
            case .required: "This field is required."
            case .notADate: "Enter a date as YYYY-MM-DD, e.g. 2024-05-31."
            case .futureDate: "The date cannot be in the future."
            case .unknownSpecies: "Select a species from the list."
            case .speciesFirst: "Select the species first."
            case .tooLong(let maximum): "Use at most \(maximum) characters."
            case .controlCharacters(allowsLineBreaks: false): "Remove the control characters (such as escape codes); use plain text."
            case .controlCharacters(allowsLineBreaks: true):
                "Remove the control characters (such as escape codes); line breaks and tabs are allowed."
            case .unknownGender: "Select female or male."
            case .invalidAge: "Enter the age in whole years, from 0 to 40."
            case .notANumber: "Enter a number, e.g. 52.22977."
            case .outOfRange(.latitude): "Latitude must be between −90 and 90."
            case .outOfRange(.longitude): "Longitude must be between −180 and 180."
            case .missingCoordinate(.latitude): "Enter the latitude too, or clear the longitude."
            case .missingCoordinate(.longitude): "Enter the longitude too, or clear the latitude."
            case .photo(.notBase64): "The photo data is not valid base64."
            case .photo(.notAnImage): "Choose a JPEG, PNG, WebP or HEIC image."
            case .photo(.tooLarge(let limit)):
                "The photo is larger than \(ByteSize.text(limit, decimalSeparator: ".")). Choose a smaller one."
            case .phone(.invalidCharacter): "Use only digits, spaces, dashes, dots, parentheses and a leading +."
            case .phone(.digitCount): "A phone number has 7 to 15 digits."
            case .email(.malformed): "Enter an email address like name@example.com."
            case .email(.tooLong): "An email address can have at most 254 characters."
            case .noContact: "Enter a phone number or an email address."
            }
        },
        locationMessage: { outcome in
            switch outcome {
            case .fix: "Position found."
            case .permissionDenied: "You are not allowed to use the location."
            case .servicesDisabled: "Location services are turned off."
            case .timeout: "No position came in time."
            case .unavailable: "No location source is available."
            }
        },
        permissionDeniedAlert: AlertCopy(
            title: "Location access denied",
            message: "Your account may not use the location; access is granted in the settings. "
                + "You can also type the coordinates or leave them empty."),
        servicesDisabledAlert: AlertCopy(
            title: "Location services are off",
            message: "Turn on location services in the settings to use the GPS position. "
                + "You can also type the coordinates or leave them empty."),
        cancel: "Cancel",
        goToSettings: "Go to Settings"
    )
}
